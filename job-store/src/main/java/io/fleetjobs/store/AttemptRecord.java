package io.fleetjobs.store;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * One try of a job on a machine; {@code gpus} the indices of the GPU devices it held there; {@code replica} its rank
 * in its gang of {@code worldSize} (0 of 1 for a job of one replica).
 */
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
        List<Integer> gpus,
        int replica,
        int worldSize) {
    public AttemptRecord {
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
    }

    public AttemptRecord(UUID jobId, int attempt, String machineId, AttemptState state, long leaseEpoch,
            Instant scheduledAt, Instant startedAt, Instant finishedAt, Integer exitCode, FailureReason failureReason,
            List<Integer> gpus) {
        this(jobId, attempt, machineId, state, leaseEpoch, scheduledAt, startedAt, finishedAt, exitCode, failureReason,
                gpus, 0, 1);
    }
}
