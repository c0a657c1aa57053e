package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.PlacementStrategy;
import io.fleetjobs.model.Resources;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A claimed job waiting for a machine: what it needs and where it may go.
 *
 * @param priority  higher goes first
 * @param gpuTypes  acceptable GPU types, any one of them; empty for any (or none, for a CPU job)
 * @param region    the region it must run in, null for any
 * @param labels    labels every candidate machine must carry, with these values (kept sorted by key)
 * @param strategy  how to choose among machines that fit; null means BINPACK
 * @param order     creation order: smaller is older, and goes first among equals
 */
public record PendingJob(
        UUID jobId,
        UUID tenantId,
        int priority,
        long cpuMillis,
        long memoryMb,
        int gpuCount,
        List<String> gpuTypes,
        String region,
        Map<String, String> labels,
        PlacementStrategy strategy,
        long order,
        boolean requireIsolation) {

    /** A job that does not ask for a sandbox. */
    public PendingJob(UUID jobId, UUID tenantId, int priority, long cpuMillis, long memoryMb, int gpuCount,
            List<String> gpuTypes, String region, Map<String, String> labels, PlacementStrategy strategy, long order) {
        this(jobId, tenantId, priority, cpuMillis, memoryMb, gpuCount, gpuTypes, region, labels, strategy, order, false);
    }

    public PendingJob {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(tenantId, "tenantId");
        if (cpuMillis <= 0 || memoryMb <= 0 || gpuCount < 0) {
            throw new IllegalArgumentException(
                    "job " + jobId + ": needs positive CPU and memory and a GPU count of 0 or more");
        }
        gpuTypes = gpuTypes == null ? List.of() : List.copyOf(gpuTypes);
        labels = labels == null || labels.isEmpty() ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(labels));
        strategy = strategy == null ? PlacementStrategy.BINPACK : strategy;
    }

    /** The pending form of a stored spec; {@code order} is its place in creation order. */
    public static PendingJob of(UUID jobId, UUID tenantId, JobSpec spec, long order) {
        Resources resources = spec.resources();
        return new PendingJob(jobId, tenantId, spec.priority(),
                resources.cpuMillis(), resources.memoryMb(), resources.gpuCount(), resources.gpuTypes(),
                spec.placement().region(), spec.placement().labels(), spec.placement().strategy(), order,
                spec.placement().requireIsolation());
    }

    /** The same job, chosen for by another strategy. */
    public PendingJob withStrategy(PlacementStrategy other) {
        return new PendingJob(jobId, tenantId, priority, cpuMillis, memoryMb, gpuCount, gpuTypes, region, labels, other, order,
                requireIsolation);
    }

    public boolean needsGpus() {
        return gpuCount > 0;
    }
}
