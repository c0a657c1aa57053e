package io.fleetjobs.jobservice;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many long-lived answers (streams) each tenant holds open on this instance, at most {@code max}: each holds a
 * request's thread and polls the database while it is open, so one tenant's thousands of them would take what every
 * tenant shares. Thread-safe.
 */
public final class OpenStreams {
    private final int max;
    private final Map<UUID, AtomicInteger> open = new ConcurrentHashMap<>();

    public OpenStreams(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("at least one stream a tenant: " + max);
        }
        this.max = max;
    }

    public int max() {
        return max;
    }

    /** Takes one of the tenant's places; false, taking nothing, when it holds them all. */
    public boolean tryOpen(UUID tenantId) {
        AtomicInteger count = open.computeIfAbsent(tenantId, t -> new AtomicInteger());
        if (count.incrementAndGet() > max) {
            count.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Gives back a place {@link #tryOpen} took. */
    public void close(UUID tenantId) {
        AtomicInteger count = open.get(tenantId);
        if (count != null) {
            count.decrementAndGet();
        }
    }
}
