package io.fleetjobs.store;

/**
 * The outcome of a submit: a new job, the job an earlier request with the same idempotency key
 * created ({@code created == false}), a conflict (the key was used for another spec), or a refusal (the tenant is
 * at its quota of live jobs, or the job asks for a priority over the tenant's highest).
 */
public sealed interface Submission {
    record Accepted(JobRecord job, boolean created) implements Submission {
    }

    record KeyConflict(JobRecord existing) implements Submission {
    }

    /** Refused, nothing written: the tenant has {@code liveJobs} live jobs and may have {@code maxLiveJobs}. */
    record OverQuota(long liveJobs, int maxLiveJobs) implements Submission {
    }

    /** Refused, nothing written: the job's priority is over {@code maxPriority}, the highest its tenant's may ask. */
    record PriorityOverQuota(int maxPriority) implements Submission {
    }
}
