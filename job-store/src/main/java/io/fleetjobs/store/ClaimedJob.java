package io.fleetjobs.store;

import io.fleetjobs.model.PlacementStrategy;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * A queued job locked by this transaction for placement: only what placement reads, straight from
 * columns (the spec is not parsed on this path). {@code replicas}: 1, or a gang's size; {@code gangScope} as in
 * the spec's placement (null: anywhere); {@code requeuedAhead}: back in the queue ahead of its priority's jobs that the
 * platform did not fail ({@link Transition#ahead}); {@code shown}: why its row says it waits, as claimed (null: not read).
 */
public record ClaimedJob(
        UUID id,
        UUID tenantId,
        long version,
        int priority,
        long cpuMillis,
        long memoryMb,
        int gpuCount,
        String gpuType,
        String region,
        Map<String, String> labels,
        PlacementStrategy strategy,
        Instant createdAt,
        boolean requireIsolation,
        int replicas,
        String gangScope,
        boolean requeuedAhead,
        PlacementStore.Shown shown) {
    public ClaimedJob(UUID id, UUID tenantId, long version, int priority, long cpuMillis, long memoryMb, int gpuCount,
            String gpuType, String region, Map<String, String> labels, PlacementStrategy strategy, Instant createdAt,
            boolean requireIsolation) {
        this(id, tenantId, version, priority, cpuMillis, memoryMb, gpuCount, gpuType, region, labels, strategy, createdAt,
                requireIsolation, 1, null, false, null);
    }

    public ClaimedJob(UUID id, UUID tenantId, long version, int priority, long cpuMillis, long memoryMb, int gpuCount,
            String gpuType, String region, Map<String, String> labels, PlacementStrategy strategy, Instant createdAt) {
        this(id, tenantId, version, priority, cpuMillis, memoryMb, gpuCount, gpuType, region, labels, strategy, createdAt,
                false);
    }
}
