package io.fleetjobs.store;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** One try of a job on a machine; {@code gpus} the indices of the GPU devices it held there. */
public record AttemptRecord(
        UUID jobId,
        int attempt,
        String machineId,
        AttemptState state,
        long leaseEpoch,
        Instant scheduledAt,
        Instant startedAt,
        Instant finishedAt,
        Integer exitCode,
        FailureReason failureReason,
        List<Integer> gpus) {
    public AttemptRecord {
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
    }
}
