package io.fleetjobs.jobservice.api;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.Placement;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.RetryPolicy;
import io.fleetjobs.store.AttemptRecord;
import io.fleetjobs.store.HistoryEntry;
import io.fleetjobs.store.JobRecord;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A job as the API shows it: the spec's fields and where the job stands. */
@Schema(name = "Job")
record JobView(
        UUID id,
        String tenant,
        String name,
        String queue,
        int priority,
        Resources resources,
        Placement placement,
        Execution execution,
        RetryPolicy retry,
        Map<String, String> labels,
        boolean preemptible,
        int replicas,
        JobState state,
        String stateReason,
        int attempt,
        String machineId,
        Integer exitCode,
        FailureReason failureReason,
        boolean cancelRequested,
        Instant createdAt,
        Instant updatedAt,
        Instant finishedAt) {

    static JobView of(JobRecord job, String tenantName) {
        var s = job.spec();
        return new JobView(job.id(), tenantName, s.name(), s.queue(), s.priority(), s.resources(), s.placement(),
                s.execution(), s.retry(), s.labels(), s.preemptible(), s.replicas(), job.state(), job.stateReason(), job.attempt(), job.machineId(),
                job.exitCode(), job.failureReason(), job.cancelRequested(), job.createdAt(), job.updatedAt(),
                job.finishedAt());
    }

    record Page(List<JobView> items, String nextPageToken) {
    }

    /** One replica's try: a job of one replica has replica 0 of a world of 1; a gang's replicas share the attempt. */
    record AttemptView(int attempt, String machineId, String state, Instant scheduledAt, Instant startedAt,
            Instant finishedAt, Integer exitCode, FailureReason failureReason, List<Integer> gpus, int replica,
            int worldSize) {
        static AttemptView of(AttemptRecord a) {
            return new AttemptView(a.attempt(), a.machineId(), a.state().name(), a.scheduledAt(), a.startedAt(),
                    a.finishedAt(), a.exitCode(), a.failureReason(), a.gpus(), a.replica(), a.worldSize());
        }
    }

    record EventView(Instant at, JobState from, JobState to, String reason) {
        static EventView of(HistoryEntry h) {
            return new EventView(h.at(), h.from(), h.to(), h.reason());
        }
    }

    record Items<T>(List<T> items) {
    }
}
