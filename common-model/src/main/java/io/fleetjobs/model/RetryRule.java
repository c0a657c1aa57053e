package io.fleetjobs.model;

import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;

/**
 * What follows a failed attempt, by failure class (BRIEF decision 7):
 * <ul>
 *   <li>the user's (an exit code, an OOM kill, a command that cannot start, a disk cap passed): retried only
 *       when the job lists the attempt's exit code (137 for an OOM kill, 127/126 for a command not found or
 *       not executable) in
 *       {@code retryOnExitCodes}, while attempts spent on the user's failures stay under {@code maxAttempts};</li>
 *   <li>timeout: fails at once;</li>
 *   <li>infrastructure (machine lost, lease expired, agent restarted, start failed): retried on the
 *       platform's own budget, so the platform's faults do not spend the user's attempts;</li>
 *   <li>preempted: back in the queue at once, spending neither budget, however often: the platform chose to end it
 *       for a job of a strictly higher priority, and a low-priority job in a busy fleet must not fail for that.</li>
 * </ul>
 * Backoff is exponential with full jitter, capped: a delay drawn uniformly from
 * {@code [0, min(cap, base * 2^(n-1))]} where n counts the failures of that class so far, this one included. The
 * platform's first failure of a job is retried at once (n counts from the second): the job did nothing wrong, and
 * finding the failure already took its time (a machine is declared lost after 15 s of silence); a second one backs off,
 * so that a machine failing every start does not spin through the budget.
 */
public final class RetryRule {
    /** Attempts the platform's own failures may spend on one job. */
    public static final int INFRA_BUDGET = 5;
    private static final Duration INFRA_BASE = Duration.ofSeconds(1);
    private static final Duration INFRA_CAP = Duration.ofSeconds(30);

    private RetryRule() {
    }

    /** The decision: retry not before a time, spending from one budget, or fail with a reason. */
    public sealed interface Decision {
        /**
         * @param ahead back in the queue ahead of the jobs of its priority that the platform did not fail: work the
         *              platform lost (a machine, an agent, a preemption) does not wait again behind every job
         *              submitted before it; a user's retry keeps its place by submission
         */
        record Retry(Instant notBefore, int spendUser, int spendInfra, boolean ahead, String reason) implements Decision {
        }

        record Fail(String reason) implements Decision {
        }
    }

    /**
     * @param userFailures attempts already spent by the user's failures, before this one
     * @param infraFailures attempts already spent by the platform's failures, before this one
     */
    public static Decision decide(RetryPolicy policy, FailureReason reason, Integer exitCode, int userFailures,
            int infraFailures, Instant now, RandomGenerator random) {
        return switch (reason.failureClass()) {
            case TIMEOUT -> new Decision.Fail("timed out");
            case USER -> {
                // OOM_KILLED (137), COMMAND_NOT_STARTABLE (127, 126), DISK_LIMIT_EXCEEDED (137) follow their exit code
                boolean retryable = exitCode != null && policy.retryOnExitCodes().contains(exitCode);
                int spent = userFailures + 1;
                String ended = reason == FailureReason.EXIT_CODE ? "exited with code " + exitCode
                        : reason + " (exit code " + exitCode + ")";
                if (!retryable) {
                    yield new Decision.Fail(ended + (policy.retryOnExitCodes().isEmpty()
                            ? "" : ", not one of the retryable codes " + policy.retryOnExitCodes()));
                }
                if (spent >= policy.maxAttempts()) {
                    yield new Decision.Fail(ended + "; all " + policy.maxAttempts() + " attempts spent");
                }
                Duration delay = backoff(Duration.ofSeconds(policy.backoffSeconds()),
                        Duration.ofSeconds(policy.maxBackoffSeconds()), spent, random);
                yield new Decision.Retry(now.plus(delay), 1, 0, false, ended.replace("with code", "with retryable code")
                        + "; retry " + spent + " of " + (policy.maxAttempts() - 1) + " in " + delay.toSeconds() + "s");
            }
            case INFRASTRUCTURE -> {
                if (reason == FailureReason.PREEMPTED) {
                    yield new Decision.Retry(now, 0, 0, true,
                            "PREEMPTED; back in the queue (a preemption spends no attempt of either budget)");
                }
                int spent = infraFailures + 1;
                if (spent >= INFRA_BUDGET) {
                    yield new Decision.Fail(reason + " " + spent + " times; giving up");
                }
                Duration delay = spent == 1 ? Duration.ZERO : backoff(INFRA_BASE, INFRA_CAP, spent - 1, random);
                yield new Decision.Retry(now.plus(delay), 0, 1, true, reason + "; retrying on another attempt (platform failure "
                        + spent + " of " + (INFRA_BUDGET - 1) + ", not counted against maxAttempts)");
            }
        };
    }

    static Duration backoff(Duration base, Duration cap, int failures, RandomGenerator random) {
        if (base.isZero()) {
            return Duration.ZERO; // backoffSeconds 0: again at once, not "up to the cap"
        }
        long capMs = cap.toMillis();
        long ceiling = base.toMillis() << Math.min(failures - 1, 30);
        if (ceiling <= 0 || ceiling > capMs) {
            ceiling = capMs;
        }
        return Duration.ofMillis(ceiling == 0 ? 0 : random.nextLong(ceiling + 1));
    }
}
