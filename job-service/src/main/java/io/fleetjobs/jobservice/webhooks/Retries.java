package io.fleetjobs.jobservice.webhooks;

import java.time.Duration;

/**
 * When a delivery that failed is tried again: after {@code base}, doubling with each failure up to {@code max},
 * for {@code tries} tries in all; then it is given up (and counted on its webhook). With the defaults (1 s doubling
 * to 10 min, 16 tries) a receiver may be down for about an hour and a half and miss nothing.
 */
public record Retries(Duration base, Duration max, int tries) {
    public static final Retries DEFAULT = new Retries(Duration.ofSeconds(1), Duration.ofMinutes(10), 16);

    public Retries {
        if (base.isNegative() || base.isZero() || max.compareTo(base) < 0 || tries < 1) {
            throw new IllegalArgumentException("retries need 0 < base <= max and at least one try: " + base + ", " + max
                    + ", " + tries);
        }
    }

    /** After the {@code failed}-th failed try (1 for the first): the wait before the next, or null to give up. */
    public Duration after(int failed) {
        if (failed >= tries) {
            return null;
        }
        int doublings = Math.min(failed - 1, 30);
        long millis = base.toMillis() << doublings;
        return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
    }
}
