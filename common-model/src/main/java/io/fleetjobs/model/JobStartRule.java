package io.fleetjobs.model;

import io.fleetjobs.model.agent.AttemptReport;
import java.time.Instant;
import java.util.Optional;

/**
 * When an applied report starts the job (SCHEDULED to RUNNING): a RUNNING report of its current attempt, or an
 * end that carries the start of an attempt never recorded running (a quick job: the agent reports both at
 * once, or its start report was lost), so that a job that ran shows that it ran.
 */
public final class JobStartRule {
    private JobStartRule() {
    }

    /** Whether an applied RUNNING report moves the job to RUNNING. */
    public static boolean startsJob(AttemptReport running, CurrentJob job) {
        return job != null && job.attempt() == running.attempt() && job.state() == JobState.SCHEDULED;
    }

    /**
     * The time of the start to record before an applied end, if one is to be: the attempt's reported start, but
     * not before the job's last change (the agent's clock is not ours) nor after {@code now}. None for an end
     * without a start (START_FAILED, or one the platform makes for a machine lost or restarted) or of an attempt
     * already recorded running.
     */
    public static Optional<Instant> startBeforeEnd(AttemptReport end, AttemptState recorded, CurrentJob job, Instant now) {
        if (end.startedAt() == null || recorded != AttemptState.SCHEDULED || !startsJob(end, job)) {
            return Optional.empty();
        }
        Instant at = end.startedAt().isAfter(now) ? now : end.startedAt();
        return Optional.of(at.isBefore(job.lastChangeAt()) ? job.lastChangeAt() : at);
    }
}
