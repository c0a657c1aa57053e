package io.fleetjobs.scheduler.service;

import io.fleetjobs.scheduler.core.GangHolds;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.store.ClaimedJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Claimed rows as the engine takes them. */
final class ClaimedJobs {
    private ClaimedJobs() {
    }

    /** @param gangs when a gang is due: one that does not fit whole keeps the room it found from the jobs after it */
    static List<PendingJob> pending(List<ClaimedJob> claimed, Instant now, GangHolds gangs) {
        List<PendingJob> pending = new ArrayList<>(claimed.size());
        for (ClaimedJob j : claimed) {
            List<String> gpuTypes = j.gpuType() == null ? List.of() : Arrays.asList(j.gpuType().split("\\|"));
            PendingJob job = new PendingJob(j.id(), j.tenantId(), j.priority(), j.cpuMillis(), j.memoryMb(), j.gpuCount(),
                    gpuTypes, j.region(), j.labels(), j.strategy(),
                    PendingJob.queueOrder(j.createdAt().toEpochMilli(), j.requeuedAhead()), j.requireIsolation(),
                    j.replicas(), j.replicas() > 1 ? j.gangScope() : null);
            pending.add(job.isGang() && gangs.holds(j.createdAt(), now) ? job.due() : job);
        }
        return pending;
    }
}
