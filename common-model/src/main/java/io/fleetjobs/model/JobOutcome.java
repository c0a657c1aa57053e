package io.fleetjobs.model;

import io.fleetjobs.model.agent.AttemptReport;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * What a job does when its current attempt ends: SUCCEEDED when the attempt succeeded; CANCELED when it was
 * canceled or a cancel was asked; otherwise back to QUEUED with a backoff, or FAILED, by {@link RetryRule}.
 */
public sealed interface JobOutcome {
    JobState target();

    /** Why, as the job's history says it. */
    String reason();

    /** The attempt's exit code, if it had one. */
    Integer exitCode();

    record Succeeded(Integer exitCode) implements JobOutcome {
        public JobState target() {
            return JobState.SUCCEEDED;
        }

        public String reason() {
            return "exited with code 0";
        }
    }

    record Canceled(Integer exitCode) implements JobOutcome {
        public JobState target() {
            return JobState.CANCELED;
        }

        public String reason() {
            return "canceled by user; the attempt was stopped";
        }
    }

    record Retried(Integer exitCode, FailureReason failure, RetryRule.Decision.Retry retry) implements JobOutcome {
        public JobState target() {
            return JobState.QUEUED;
        }

        public String reason() {
            return retry.reason();
        }
    }

    record Failed(Integer exitCode, FailureReason failure, String reason) implements JobOutcome {
        public JobState target() {
            return JobState.FAILED;
        }
    }

    /**
     * The job's outcome of an applied end, or none when the attempt is not the job's attempt on a machine (an
     * earlier attempt's end, or a job that has moved on: it stays as it is).
     *
     * @param policy read only for a failure (parsing it is not free)
     * @param now when the backoff starts
     */
    static Optional<JobOutcome> ofEnd(AttemptReport end, CurrentJob job, Supplier<RetryPolicy> policy, Instant now,
            RandomGenerator random) {
        if (job == null || !job.isOnMachineWith(end.attempt())) {
            return Optional.empty();
        }
        if (end.state() == AttemptState.SUCCEEDED) {
            return Optional.of(new Succeeded(end.exitCode()));
        }
        if (end.state() == AttemptState.CANCELED || job.cancelRequested()) {
            return Optional.of(new Canceled(end.exitCode()));
        }
        FailureReason reason = end.failureReason() == null ? FailureReason.EXIT_CODE : end.failureReason();
        return Optional.of(switch (RetryRule.decide(policy.get(), reason, end.exitCode(), job.userFailures(),
                job.infraFailures(), now, random)) {
            case RetryRule.Decision.Retry retry -> new Retried(end.exitCode(), reason, retry);
            case RetryRule.Decision.Fail fail -> new Failed(end.exitCode(), reason, fail.reason());
        });
    }
}
