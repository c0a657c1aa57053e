package io.fleetjobs.scheduler.core;

import java.util.Objects;
import java.util.UUID;

/**
 * A tenant as the snapshot saw it: its fair-share weight, what it holds now (allocations of its
 * live attempts) and its quota.
 *
 * @param weight relative share of the cluster under contention, 1 or more: a tenant of weight 2 is
 *               entitled to twice the dominant share of a tenant of weight 1
 * @param quota  null means {@link Quota#UNLIMITED}
 */
public record TenantView(UUID id, int weight, long usedCpuMillis, long usedMemoryMb, int usedGpus, Quota quota) {

    public TenantView {
        Objects.requireNonNull(id, "id");
        if (weight < 1) {
            throw new IllegalArgumentException("tenant " + id + ": weight must be at least 1");
        }
        if (usedCpuMillis < 0 || usedMemoryMb < 0 || usedGpus < 0) {
            throw new IllegalArgumentException("tenant " + id + ": usage must not be negative");
        }
        quota = quota == null ? Quota.UNLIMITED : quota;
    }

    /** A tenant the snapshot does not name: weight 1, holding nothing, no quota. */
    public static TenantView unknown(UUID id) {
        return new TenantView(id, 1, 0, 0, 0, Quota.UNLIMITED);
    }
}
