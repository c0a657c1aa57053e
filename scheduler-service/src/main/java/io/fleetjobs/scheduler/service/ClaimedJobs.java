package io.fleetjobs.scheduler.service;

import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.store.ClaimedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Claimed rows as the engine takes them. */
final class ClaimedJobs {
    private ClaimedJobs() {
    }

    /**
     * How long a gang waits before it is due: a due gang that does not fit whole keeps the room it found from the
     * jobs after it in the plan, so that small jobs cannot starve it (docs/architecture.md, "Gangs").
     */
    static final Duration GANG_PATIENCE = Duration.ofMinutes(2);

    static List<PendingJob> pending(List<ClaimedJob> claimed, Instant now) {
        List<PendingJob> pending = new ArrayList<>(claimed.size());
        Instant dueBefore = now.minus(GANG_PATIENCE);
        for (ClaimedJob j : claimed) {
            List<String> gpuTypes = j.gpuType() == null ? List.of() : Arrays.asList(j.gpuType().split("\\|"));
            PendingJob job = new PendingJob(j.id(), j.tenantId(), j.priority(), j.cpuMillis(), j.memoryMb(), j.gpuCount(),
                    gpuTypes, j.region(), j.labels(), j.strategy(),
                    PendingJob.queueOrder(j.createdAt().toEpochMilli(), j.requeuedAhead()), j.requireIsolation(),
                    j.replicas(), j.replicas() > 1 ? j.gangScope() : null);
            pending.add(job.isGang() && j.createdAt().isBefore(dueBefore) ? job.due() : job);
        }
        return pending;
    }
}
