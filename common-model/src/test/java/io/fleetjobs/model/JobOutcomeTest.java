package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.agent.AttemptReport;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobOutcomeTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final RetryPolicy POLICY = new RetryPolicy(3, List.of(75), 5, 60);

    @ParameterizedTest(name = "attempt {0} ends {1} (exit {2}, {3}) of a job {4} on attempt {5}, cancel asked {6}: {7}")
    @CsvSource({
            // ended attempt, state, exit, failure, job state, job attempt, cancel asked, user/infra spent, outcome, spent
            "2, SUCCEEDED, 0,  ,              RUNNING,   2, false, 0, SUCCEEDED, ",
            "2, SUCCEEDED, 0,  ,              RUNNING,   2, true,  0, SUCCEEDED, ",      // it finished before the kill
            "2, SUCCEEDED, 0,  ,              SCHEDULED, 2, false, 0, SUCCEEDED, ",      // its start report was lost
            "2, CANCELED,  143, ,             RUNNING,   2, true,  0, CANCELED, ",
            "2, FAILED,    143, ,             RUNNING,   2, true,  0, CANCELED, ",       // killed for the cancel
            "2, FAILED,    1,  ,              RUNNING,   2, false, 0, FAILED, ",         // not a retryable code
            "2, FAILED,    75, ,              RUNNING,   2, false, 0, QUEUED, user",     // retryable: backoff
            "2, FAILED,    75, ,              RUNNING,   2, false, 2, FAILED, ",         // all three attempts spent
            "2, FAILED,    ,   MACHINE_LOST,  RUNNING,   2, false, 2, QUEUED, infra",    // the platform's own budget
            "2, FAILED,    ,   MACHINE_LOST,  RUNNING,   2, false, 4, FAILED, ",
            "2, FAILED,    ,   TIMEOUT,       RUNNING,   2, false, 0, FAILED, ",
            "2, FAILED,    ,   START_FAILED,  SCHEDULED, 2, false, 0, QUEUED, infra",
            "1, FAILED,    1,  ,              RUNNING,   2, false, 0, , ",               // an earlier attempt: the job stays
            "2, SUCCEEDED, 0,  ,              QUEUED,    2, false, 0, , ",               // moved on already
            "2, SUCCEEDED, 0,  ,              CANCELED,  2, false, 0, , "})
    void anEndedAttemptDecidesItsJob(int attempt, AttemptState ended, Integer exit, FailureReason failure, JobState jobState,
            int jobAttempt, boolean cancelAsked, int spent, JobState outcome, String budget) {
        AttemptReport end = new AttemptReport(UUID.randomUUID(), attempt, 1, "m1", ended, exit, failure, null, NOW, null, null);
        CurrentJob job = new CurrentJob(jobState, jobAttempt, cancelAsked, spent, spent, NOW.minusSeconds(60));
        boolean[] policyRead = {false};
        var decided = JobOutcome.ofEnd(end, job, () -> {
            policyRead[0] = true;
            return POLICY;
        }, NOW, new Random(7));

        assertThat(decided.map(JobOutcome::target).orElse(null)).isEqualTo(outcome);
        assertThat(policyRead[0]).as("the policy is read only for a failure").isEqualTo(
                decided.orElse(null) instanceof JobOutcome.Retried || decided.orElse(null) instanceof JobOutcome.Failed);
        decided.ifPresent(o -> {
            assertThat(o.reason()).isNotBlank();
            assertThat(o.exitCode()).isEqualTo(exit);
        });
        if (decided.orElse(null) instanceof JobOutcome.Retried retried) {
            assertThat(retried.failure()).isEqualTo(failure == null ? FailureReason.EXIT_CODE : failure);
            assertThat(retried.retry().notBefore()).isAfterOrEqualTo(NOW);
            assertThat(retried.retry().spendUser()).isEqualTo("user".equals(budget) ? 1 : 0);
            assertThat(retried.retry().spendInfra()).isEqualTo("infra".equals(budget) ? 1 : 0);
        }
        if (decided.orElse(null) instanceof JobOutcome.Failed failed) {
            assertThat(failed.failure()).isEqualTo(failure == null ? FailureReason.EXIT_CODE : failure);
        }
    }
}
