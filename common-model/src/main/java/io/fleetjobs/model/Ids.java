package io.fleetjobs.model;

import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.UUID;

/**
 * Time-ordered identifiers (UUID version 7, RFC 9562): new rows land at the right edge of the
 * primary-key index, and ordering by id is ordering by creation, which keyset pagination uses.
 */
public final class Ids {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {
    }

    public static UUID newId(InstantSource clock) {
        long millis = clock.millis();
        long randA = RANDOM.nextInt() & 0xFFFL;
        long msb = (millis << 16) | (0x7L << 12) | randA;
        long lsb = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }

    public static UUID newId() {
        return newId(InstantSource.system());
    }
}
