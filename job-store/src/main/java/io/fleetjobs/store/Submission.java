package io.fleetjobs.store;

/**
 * The outcome of a submit: a new job, the job an earlier request with the same idempotency key
 * created ({@code created == false}), or a conflict (the key was used for another spec).
 */
public sealed interface Submission {
    record Accepted(JobRecord job, boolean created) implements Submission {
    }

    record KeyConflict(JobRecord existing) implements Submission {
    }
}
