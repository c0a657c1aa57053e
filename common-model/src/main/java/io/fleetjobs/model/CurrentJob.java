package io.fleetjobs.model;

import java.time.Instant;

/**
 * What the rules of a report need of the job it concerns, as read under the job's row lock.
 *
 * @param lastChangeAt when the job last changed (its placement, for a job on a machine)
 */
public record CurrentJob(JobState state, int attempt, boolean cancelRequested, int userFailures, int infraFailures,
        Instant lastChangeAt) {

    /** Whether {@code attempt} is the job's attempt on a machine now: only then does its report move the job. */
    public boolean isOnMachineWith(int attempt) {
        return this.attempt == attempt && state.isOnMachine();
    }
}
