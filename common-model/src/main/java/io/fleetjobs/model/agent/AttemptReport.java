package io.fleetjobs.model.agent;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import java.time.Instant;
import java.util.UUID;

/**
 * What an agent says of one attempt: it runs (RUNNING), or how it ended. Carried only on heartbeats
 * (until acknowledged), the agent API bound to the machine's credential, never on Kafka. Applying a report is
 * idempotent and fenced: a report whose attempt or lease epoch is not current changes nothing,
 * and a late report never moves a job backwards.
 *
 * @param epoch the lease epoch the agent was given with the attempt
 * @param exitCode the process's exit status (128 + signal when killed by a signal)
 * @param stdoutTail the last bytes of stdout, for the logs endpoint
 */
public record AttemptReport(
        UUID jobId,
        int attempt,
        long epoch,
        String machineId,
        AttemptState state,
        Integer exitCode,
        FailureReason failureReason,
        Instant startedAt,
        Instant finishedAt,
        String stdoutTail,
        String stderrTail) {

    public boolean endsAttempt() {
        return state != null && !state.isLive();
    }
}
