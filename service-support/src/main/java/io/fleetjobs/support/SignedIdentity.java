package io.fleetjobs.support;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The identity the gateway passes to the services, signed with the secret they share
 * ({@code JOBS_INTERNAL_SECRET}). Two headers:
 *
 * <pre>
 *   X-Jobs-Identity:           &lt;tenantId&gt;;&lt;tenantName&gt;;&lt;ADMIN|USER&gt;;&lt;expires, epoch seconds&gt;
 *   X-Jobs-Identity-Signature: base64url(HMAC-SHA256(secret, the value above)), unpadded
 * </pre>
 *
 * An identity is valid for {@link #VALIDITY} from signing; one that claims to live longer, has
 * expired, does not parse or whose signature differs is no identity at all. Without a secret
 * nothing verifies (and nothing can be signed): a service that was not given one admits nobody.
 * Plain Java, thread-safe.
 */
public final class SignedIdentity {
    public static final String HEADER = "X-Jobs-Identity";
    public static final String SIGNATURE_HEADER = "X-Jobs-Identity-Signature";
    public static final Duration VALIDITY = Duration.ofSeconds(60);
    /** Clocks of gateway and service may differ this much. */
    static final Duration SKEW = Duration.ofSeconds(5);
    /** Short secrets are refused: HMAC is only as strong as its key. */
    public static final int MIN_SECRET_LENGTH = 16;

    private final SecretKeySpec key;
    private final InstantSource clock;

    /** {@code secret} null or blank: nothing verifies. */
    public SignedIdentity(String secret, InstantSource clock) {
        if (secret != null && !secret.isBlank() && secret.length() < MIN_SECRET_LENGTH) {
            throw new IllegalArgumentException("the internal secret must have at least " + MIN_SECRET_LENGTH + " characters");
        }
        this.key = secret == null || secret.isBlank() ? null
                : new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
        this.clock = clock;
    }

    public boolean hasSecret() {
        return key != null;
    }

    /** The two header values for {@code caller}, valid for {@link #VALIDITY} from now. */
    public Signed sign(CallerIdentity caller) {
        if (key == null) {
            throw new IllegalStateException("no internal secret (JOBS_INTERNAL_SECRET): cannot sign an identity");
        }
        long expires = clock.instant().plus(VALIDITY).getEpochSecond();
        String value = caller.tenantId() + ";" + caller.tenantName() + ";" + caller.role() + ";" + expires;
        return new Signed(value, Base64.getUrlEncoder().withoutPadding().encodeToString(mac(value)));
    }

    /** The caller the headers vouch for, or empty when they do not (missing, forged, expired, malformed). */
    public Optional<CallerIdentity> verify(String value, String signature) {
        if (key == null || value == null || signature == null || value.length() > 256 || signature.length() > 64) {
            return Optional.empty();
        }
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(signature);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        if (!MessageDigest.isEqual(mac(value), given)) {
            return Optional.empty();
        }
        String[] parts = value.split(";", -1);
        if (parts.length != 4) {
            return Optional.empty();
        }
        try {
            long expires = Long.parseLong(parts[3]);
            long now = clock.instant().getEpochSecond();
            if (expires < now || expires > now + VALIDITY.plus(SKEW).toSeconds()) {
                return Optional.empty();
            }
            return Optional.of(new CallerIdentity(UUID.fromString(parts[0]), parts[1], CallerIdentity.Role.valueOf(parts[2])));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private byte[] mac(String value) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac.doFinal(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The header values: {@link #HEADER} and {@link #SIGNATURE_HEADER}. */
    public record Signed(String value, String signature) {
    }
}
