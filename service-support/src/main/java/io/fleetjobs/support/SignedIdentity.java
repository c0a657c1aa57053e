package io.fleetjobs.support;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The identity the gateway passes to a service for one request, signed with the secret they share
 * ({@code JOBS_INTERNAL_SECRET}). Two headers:
 *
 * <pre>
 *   X-Jobs-Identity:           2;&lt;tenantId&gt;;&lt;tenantName&gt;;&lt;ADMIN|USER&gt;;&lt;expires, epoch seconds&gt;;&lt;nonce&gt;;&lt;service&gt;
 *   X-Jobs-Identity-Signature: base64url(HMAC-SHA256(secret, value "\n" METHOD "\n" path?query)), unpadded
 * </pre>
 *
 * The signature binds the identity to the request it was made for: the target service, the method and the path
 * with its query, none of which the holder of a header can change. It is valid for {@link #VALIDITY} from signing
 * and only once: a verifier remembers each nonce it accepted until the identity would have expired anyway, so a
 * header seen on the wire (a log, a proxy, a neighbour on the network) buys nothing — not the same call again,
 * not another path, not another service. The memory is each verifier's own: a replay to another replica of the
 * same service within the few seconds of validity is what remains, for the same method and path only.
 *
 * <p>Without a secret nothing verifies (and nothing can be signed): a service that was not given one admits
 * nobody. Plain Java, thread-safe.
 */
public final class SignedIdentity {
    public static final String HEADER = "X-Jobs-Identity";
    public static final String SIGNATURE_HEADER = "X-Jobs-Identity-Signature";
    public static final Duration VALIDITY = Duration.ofSeconds(10);
    /** Clocks of gateway and service may differ this much. */
    static final Duration SKEW = Duration.ofSeconds(5);
    /** Short secrets are refused: HMAC is only as strong as its key. */
    public static final int MIN_SECRET_LENGTH = 16;
    private static final String VERSION = "2";
    /** Nonces remembered at most; a gateway signing more than this in {@code VALIDITY + SKEW} would see refusals. */
    private static final long MAX_REMEMBERED = 2_000_000;

    private final SecretKeySpec key;
    private final InstantSource clock;
    private final Cache<String, Boolean> seen;

    /** {@code secret} null or blank: nothing verifies. */
    public SignedIdentity(String secret, InstantSource clock) {
        if (secret != null && !secret.isBlank() && secret.length() < MIN_SECRET_LENGTH) {
            throw new IllegalArgumentException("the internal secret must have at least " + MIN_SECRET_LENGTH + " characters");
        }
        this.key = secret == null || secret.isBlank() ? null
                : new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        this.clock = clock;
        this.seen = Caffeine.newBuilder().expireAfterWrite(VALIDITY.plus(SKEW).plusSeconds(1)).maximumSize(MAX_REMEMBERED)
                .build();
    }

    public boolean hasSecret() {
        return key != null;
    }

    /**
     * The one request an identity is for.
     *
     * @param service      the service that is to verify it ({@link ServiceName}: job-service, scheduler-service)
     * @param method       the HTTP method, upper case
     * @param pathAndQuery the request's path, with {@code ?query} when there is one, in the canonical form of
     *                     {@link #of}: what a proxy may change on the way (the order of parameters, how they are
     *                     escaped) does not count, what they say does
     */
    public record Target(String service, String method, String pathAndQuery) {
        /** {@code path} as the container decoded and normalised it; {@code rawQuery} as received (null: none). */
        public static Target of(String service, String method, String path, String rawQuery) {
            if (rawQuery == null || rawQuery.isEmpty()) {
                return new Target(service, method, path);
            }
            List<String> pairs = new ArrayList<>();
            for (String pair : rawQuery.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                pairs.add(encode(name) + "=" + encode(value));
            }
            Collections.sort(pairs);
            return new Target(service, method, path + "?" + String.join("&", pairs));
        }

        private static String decode(String s) {
            try {
                return URLDecoder.decode(s, StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return s; // a malformed escape is signed as it came
            }
        }

        private static String encode(String s) {
            return URLEncoder.encode(s, StandardCharsets.UTF_8);
        }
    }

    /** The two header values for {@code caller} calling {@code target}, valid once, for {@link #VALIDITY} from now. */
    public Signed sign(CallerIdentity caller, Target target) {
        if (key == null) {
            throw new IllegalStateException("no internal secret (JOBS_INTERNAL_SECRET): cannot sign an identity");
        }
        long expires = clock.instant().plus(VALIDITY).getEpochSecond();
        String value = String.join(";", VERSION, caller.tenantId().toString(), caller.tenantName(), caller.role().name(),
                Long.toString(expires), UUID.randomUUID().toString(), target.service());
        return new Signed(value, Base64.getUrlEncoder().withoutPadding().encodeToString(mac(value, target)));
    }

    /**
     * The caller the headers vouch for on this request, or empty when they do not: missing, forged, expired,
     * malformed, made for another service, method or path, or seen before.
     */
    public Optional<CallerIdentity> verify(String value, String signature, Target target) {
        if (key == null || value == null || signature == null || value.length() > 320 || signature.length() > 64) {
            return Optional.empty();
        }
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(signature);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (!MessageDigest.isEqual(mac(value, target), given)) {
            return Optional.empty();
        }
        String[] parts = value.split(";", -1);
        if (parts.length != 7 || !parts[0].equals(VERSION) || !parts[6].equals(target.service())) {
            return Optional.empty();
        }
        try {
            long expires = Long.parseLong(parts[4]);
            long now = clock.instant().getEpochSecond();
            if (expires < now || expires > now + VALIDITY.plus(SKEW).toSeconds()) {
                return Optional.empty();
            }
            CallerIdentity caller = new CallerIdentity(UUID.fromString(parts[1]), parts[2], CallerIdentity.Role.valueOf(parts[3]));
            if (seen.asMap().putIfAbsent(parts[5], Boolean.TRUE) != null) {
                return Optional.empty(); // a replay
            }
            return Optional.of(caller);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private byte[] mac(String value, Target target) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac.doFinal((value + "\n" + target.method() + "\n" + target.pathAndQuery()).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The header values: {@link #HEADER} and {@link #SIGNATURE_HEADER}. */
    public record Signed(String value, String signature) {
    }
}
