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
 * @param order     place in the queue ({@link #queueOrder}): smaller goes first among equals
 * @param replicas  1 for a job; N &gt; 1 for a gang, whose N replicas (each of these amounts) are placed all or none
 * @param gangScope where a gang's replicas must be together: null anywhere, {@link #SAME_REGION}, or
 *                  {@code label:KEY} (every replica on machines with the same value of label KEY)
 * @param gangDue   a gang that has waited past the scheduler's patience: when it does not fit whole, it keeps the
 *                  room its replicas found from the jobs after it in the plan, so that small jobs cannot starve it
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
        boolean requireIsolation,
        int replicas,
        String gangScope,
        boolean gangDue) {

    /** A gang's replicas all in one region. */
    public static final String SAME_REGION = "region";
    /** The prefix of a gang scope naming a label whose value all replicas' machines share. */
    public static final String SAME_LABEL = "label:";

    /**
     * A job's place in the queue among equals, as the claim orders them: work the platform lost (requeued ahead)
     * before every job it did not fail, then by creation, oldest first.
     */
    public static long queueOrder(long createdEpochMilli, boolean requeuedAhead) {
        return requeuedAhead ? Long.MIN_VALUE / 2 + createdEpochMilli : createdEpochMilli;
    }

    /** A gang not yet due (or a job of one replica). */
    public PendingJob(UUID jobId, UUID tenantId, int priority, long cpuMillis, long memoryMb, int gpuCount,
            List<String> gpuTypes, String region, Map<String, String> labels, PlacementStrategy strategy, long order,
            boolean requireIsolation, int replicas, String gangScope) {
        this(jobId, tenantId, priority, cpuMillis, memoryMb, gpuCount, gpuTypes, region, labels, strategy, order,
                requireIsolation, replicas, gangScope, false);
    }

    /** A job of one replica. */
    public PendingJob(UUID jobId, UUID tenantId, int priority, long cpuMillis, long memoryMb, int gpuCount,
            List<String> gpuTypes, String region, Map<String, String> labels, PlacementStrategy strategy, long order,
            boolean requireIsolation) {
        this(jobId, tenantId, priority, cpuMillis, memoryMb, gpuCount, gpuTypes, region, labels, strategy, order,
                requireIsolation, 1, null);
    }

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
        if (replicas < 1) {
            throw new IllegalArgumentException("job " + jobId + ": replicas must be at least 1");
        }
        if (gangScope != null && !gangScope.equals(SAME_REGION)
                && !(gangScope.startsWith(SAME_LABEL) && gangScope.length() > SAME_LABEL.length())) {
            throw new IllegalArgumentException("job " + jobId + ": gangScope must be null, 'region' or 'label:KEY'");
        }
    }

    /** The pending form of a stored spec; {@code order} is its place in creation order. */
    public static PendingJob of(UUID jobId, UUID tenantId, JobSpec spec, long order) {
        Resources resources = spec.resources();
        return new PendingJob(jobId, tenantId, spec.priority(),
                resources.cpuMillis(), resources.memoryMb(), resources.gpuCount(), resources.gpuTypes(),
                spec.placement().region(), spec.placement().labels(), spec.placement().strategy(), order,
                spec.requiresSandbox(), spec.replicas(), spec.replicas() > 1 ? spec.placement().gangScope() : null);
    }

    /** The same job, chosen for by another strategy. */
    public PendingJob withStrategy(PlacementStrategy other) {
        return new PendingJob(jobId, tenantId, priority, cpuMillis, memoryMb, gpuCount, gpuTypes, region, labels, other, order,
                requireIsolation, replicas, gangScope, gangDue);
    }

    /** One replica of the job, held to a region and labels (a gang's scope made concrete). */
    PendingJob replicaIn(String inRegion, Map<String, String> withLabels) {
        return new PendingJob(jobId, tenantId, priority, cpuMillis, memoryMb, gpuCount, gpuTypes, inRegion, withLabels,
                strategy, order, requireIsolation, 1, null);
    }

    /** The whole gang as one amount, for quotas and fair shares. */
    PendingJob wholeGang() {
        return new PendingJob(jobId, tenantId, priority, cpuMillis * replicas, memoryMb * replicas, gpuCount * replicas,
                gpuTypes, region, labels, strategy, order, requireIsolation, 1, null);
    }

    /** The same gang, due (see {@code gangDue}). */
    public PendingJob due() {
        return new PendingJob(jobId, tenantId, priority, cpuMillis, memoryMb, gpuCount, gpuTypes, region, labels, strategy,
                order, requireIsolation, replicas, gangScope, isGang());
    }

    public boolean isGang() {
        return replicas > 1;
    }

    public boolean needsGpus() {
        return gpuCount > 0;
    }
}
