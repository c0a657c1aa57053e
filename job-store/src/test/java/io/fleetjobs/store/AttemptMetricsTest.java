package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.RetryPolicy;
import io.fleetjobs.model.agent.AttemptReport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** Attempt endings and retries are counted by state, reason and class; the ids are in the log context while applying. */
class AttemptMetricsTest {
    private static StoreFixture f;
    private static final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private static AttemptReports reports;
    private static PlacementStore placement;

    @BeforeAll
    static void start() {
        f = new StoreFixture(4);
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(7), meters);
        placement = new PlacementStore(f.jdbc, f.jobs);
        new MachineStore(f.jdbc, f.jobs.clock()).register("mm", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static JobRecord placed(JobSpec spec) {
        JobRecord queued = f.jobs.transition(((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job(),
                Transition.admit()).orElseThrow();
        f.jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(queued.id())).getFirst(), "mm", 1000, 256, 0)), List.of(), Duration.ofSeconds(30)));
        return f.jobs.get(queued.id()).orElseThrow();
    }

    private static AttemptReport ended(JobRecord job, AttemptState state, Integer exit, FailureReason reason) {
        return new AttemptReport(job.id(), job.attempt(), f.epoch(job), "mm", state, exit, reason, Instant.now(), Instant.now(), "", "");
    }

    private static double count(String name, String... tags) {
        var counter = meters.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void endingsAndRetriesAreCountedByReasonAndClass() {
        JobRecord ok = placed(StoreFixture.aJob("ok"));
        reports.apply(ended(ok, AttemptState.SUCCEEDED, 0, null));
        assertThat(count("jobs.attempts.ended", "state", "SUCCEEDED", "reason", "none")).isEqualTo(1);

        JobSpec retrying = new JobSpec("retry", null, null, Resources.of(1, 256), null, Execution.of("x"),
                new RetryPolicy(3, List.of(75), 5, 60), null);
        JobRecord flaky = placed(retrying);
        reports.apply(ended(flaky, AttemptState.FAILED, 75, FailureReason.EXIT_CODE));
        assertThat(count("jobs.retries", "reason", "EXIT_CODE", "failure_class", "USER")).isEqualTo(1);

        JobRecord lost = placed(StoreFixture.aJob("lost"));
        reports.apply(ended(lost, AttemptState.FAILED, null, FailureReason.MACHINE_LOST));
        assertThat(count("jobs.retries", "reason", "MACHINE_LOST", "failure_class", "INFRASTRUCTURE")).isEqualTo(1);
        assertThat(count("jobs.attempts.ended", "state", "FAILED", "reason", "MACHINE_LOST")).isEqualTo(1);

        JobRecord broken = placed(StoreFixture.aJob("broken"));
        reports.apply(ended(broken, AttemptState.FAILED, 2, FailureReason.EXIT_CODE));
        assertThat(count("jobs.attempts.ended", "state", "FAILED", "reason", "EXIT_CODE", "failure_class", "USER"))
                .isEqualTo(2);
        assertThat(count("jobs.retries", "reason", "EXIT_CODE")).as("exit 2 is not retryable").isEqualTo(1);

        // a duplicate report counts nothing
        reports.apply(ended(broken, AttemptState.FAILED, 2, FailureReason.EXIT_CODE));
        assertThat(count("jobs.attempts.ended", "state", "FAILED", "reason", "EXIT_CODE")).isEqualTo(2);
    }

    @Test
    void theLogContextHoldsTheIdsInsideAndIsRestoredAfter() {
        UUID outer = UUID.randomUUID();
        UUID inner = UUID.randomUUID();
        try (var a = JobLogContext.of(outer)) {
            assertThat(MDC.get(JobLogContext.JOB_ID)).isEqualTo(outer.toString());
            assertThat(MDC.get(JobLogContext.ATTEMPT_ID)).isNull();
            try (var b = JobLogContext.of(inner, 2, "m-1")) {
                assertThat(MDC.get(JobLogContext.JOB_ID)).isEqualTo(inner.toString());
                assertThat(MDC.get(JobLogContext.ATTEMPT_ID)).isEqualTo(inner + "/2");
                assertThat(MDC.get(JobLogContext.MACHINE_ID)).isEqualTo("m-1");
            }
            assertThat(MDC.get(JobLogContext.JOB_ID)).isEqualTo(outer.toString());
            assertThat(MDC.get(JobLogContext.MACHINE_ID)).isNull();
        }
        assertThat(MDC.get(JobLogContext.JOB_ID)).isNull();
    }
}
