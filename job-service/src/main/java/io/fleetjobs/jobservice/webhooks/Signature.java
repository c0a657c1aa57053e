package io.fleetjobs.jobservice.webhooks;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a delivery proves it came from the platform: header {@value #HEADER} is {@code t=<unix seconds>,v1=<hex>},
 * the hex an HMAC-SHA256 under the webhook's secret of {@code "<t>.<body>"}. The time inside the signed text lets a
 * receiver refuse an old delivery replayed; the receiver compares in constant time.
 */
public final class Signature {
    public static final String HEADER = "FleetJobs-Signature";
    private static final SecureRandom RANDOM = new SecureRandom();

    private Signature() {
    }

    /** A new secret: 32 random bytes, hex, prefixed so a person can tell it from an API key. */
    public static String newSecret() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return "whsec_" + HexFormat.of().formatHex(bytes);
    }

    /** The header's value for {@code body} sent at {@code unixSeconds}. */
    public static String sign(String secret, long unixSeconds, String body) {
        return "t=" + unixSeconds + ",v1=" + HexFormat.of().formatHex(hmac(secret, unixSeconds + "." + body));
    }

    /** Whether {@code header} is a signature of {@code body} under {@code secret} (its time is the caller's to judge). */
    public static boolean verify(String secret, String header, String body) {
        if (header == null) {
            return false;
        }
        String t = null;
        String v1 = null;
        for (String part : header.split(",")) {
            if (part.startsWith("t=")) {
                t = part.substring(2);
            } else if (part.startsWith("v1=")) {
                v1 = part.substring(3);
            }
        }
        if (t == null || v1 == null) {
            return false;
        }
        byte[] expected = hmac(secret, t + "." + body);
        byte[] given;
        try {
            given = HexFormat.of().parseHex(v1);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(expected, given);
    }

    private static byte[] hmac(String secret, String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }
}
