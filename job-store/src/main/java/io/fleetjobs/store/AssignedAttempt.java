package io.fleetjobs.store;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.agent.AgentProtocol.Gang;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * An attempt the database says runs (or is to start) on a machine; {@code execution} (the spec's
 * command, environment and timeout) only while it is to start (SCHEDULED), and null for one a read left for a later
 * answer ({@link MachineStore#START_BYTES_PER_READ}), with what it holds: {@code gpus}
 * the indices of its devices, and {@code startWithinMs} how long it may still be started: its lease's expiry
 * less the database's clock now (null when it has none, or is running). {@code gang}: its place in its gang (null
 * for a job of one replica); {@code gangFailed}: another replica of its gang failed, so it is to end too;
 * {@code timeLimitEndsAt}: when a running attempt's time limit ends (its start plus the job's
 * {@code timeoutSeconds}; null without a limit or before it started).
 */
public record AssignedAttempt(UUID jobId, int attempt, long epoch, AttemptState state,
        boolean cancelRequested, Execution execution, long cpuMillis, long memoryMb,
        List<Integer> gpus, Long startWithinMs, boolean preempted, Gang gang,
        boolean gangFailed, Instant timeLimitEndsAt) {
    /** Whether it is to start but its read did not carry its execution: a later answer starts it. */
    public boolean startsLater() {
        return state == AttemptState.SCHEDULED && execution == null;
    }

    /** The same attempt with another execution and time left to start it. */
    public AssignedAttempt with(Execution execution, Long startWithinMs) {
        return new AssignedAttempt(jobId, attempt, epoch, state, cancelRequested, execution, cpuMillis, memoryMb, gpus,
                startWithinMs, preempted, gang, gangFailed, timeLimitEndsAt);
    }

    public AssignedAttempt(UUID jobId, int attempt, long epoch, AttemptState state,
            boolean cancelRequested, Execution execution, long cpuMillis, long memoryMb,
            List<Integer> gpus, Long startWithinMs, boolean preempted, Gang gang,
            boolean gangFailed) {
        this(jobId, attempt, epoch, state, cancelRequested, execution, cpuMillis, memoryMb, gpus, startWithinMs,
                preempted, gang, gangFailed, null);
    }

    public AssignedAttempt(UUID jobId, int attempt, long epoch, AttemptState state,
            boolean cancelRequested, Execution execution, long cpuMillis, long memoryMb,
            List<Integer> gpus, Long startWithinMs, boolean preempted) {
        this(jobId, attempt, epoch, state, cancelRequested, execution, cpuMillis, memoryMb, gpus, startWithinMs,
                preempted, null, false);
    }

    public AssignedAttempt(UUID jobId, int attempt, long epoch, AttemptState state,
            boolean cancelRequested, Execution execution, long cpuMillis, long memoryMb,
            List<Integer> gpus, Long startWithinMs) {
        this(jobId, attempt, epoch, state, cancelRequested, execution, cpuMillis, memoryMb, gpus, startWithinMs, false);
    }

    public AssignedAttempt(UUID jobId, int attempt, long epoch, AttemptState state,
            boolean cancelRequested, Execution execution, long cpuMillis, long memoryMb,
            List<Integer> gpus) {
        this(jobId, attempt, epoch, state, cancelRequested, execution, cpuMillis, memoryMb, gpus, null);
    }

    public AssignedAttempt(UUID jobId, int attempt, long epoch, AttemptState state,
            boolean cancelRequested, Execution execution) {
        this(jobId, attempt, epoch, state, cancelRequested, execution, 0, 0, List.of(), null);
    }
}
