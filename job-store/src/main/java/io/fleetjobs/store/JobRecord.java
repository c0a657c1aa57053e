package io.fleetjobs.store;

import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import java.time.Instant;
import java.util.UUID;

/** A job row as read at one moment; {@link #version()} is what a guarded update must still find. */
public record JobRecord(
        UUID id,
        UUID tenantId,
        JobSpec spec,
        JobState state,
        String stateReason,
        long version,
        int attempt,
        int userFailures,
        int infraFailures,
        String machineId,
        Integer exitCode,
        FailureReason failureReason,
        boolean cancelRequested,
        Instant notBefore,
        Instant createdAt,
        Instant updatedAt,
        Instant finishedAt) {
}
