package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.RetryPolicy;
import io.fleetjobs.model.agent.AttemptReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Fencing: stale, duplicate and out-of-order reports change nothing they must not. */
class AttemptReportsTest {
    private static StoreFixture f;
    private static AttemptReports reports;
    private static PlacementStore placement;
    private static MachineStore machines;

    @BeforeAll
    static void start() {
        f = new StoreFixture(4);
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(7));
        placement = new PlacementStore(f.jdbc, f.jobs);
        machines = new MachineStore(f.jdbc, f.jobs.clock());
        machines.register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    /** A job placed on machine m as attempt 1, epoch 1. */
    private static JobRecord placed(JobSpec spec) {
        JobRecord job = ((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job();
        job = f.jobs.transition(job, Transition.admit()).orElseThrow();
        JobRecord queued = job;
        f.jobs.inTransaction(() -> {
            ClaimedJob claimed = placement.reclaim(List.of(queued.id())).getFirst();
            return placement.commit(List.of(new PlacementStore.NewAttempt(claimed, "m", 1000, 256, 0)), List.of(),
                    Duration.ofSeconds(30));
        });
        return f.jobs.get(job.id()).orElseThrow();
    }

    private static AttemptReport report(JobRecord job, long epoch, AttemptState state, Integer exit) {
        Instant now = Instant.now();
        return new AttemptReport(job.id(), job.attempt(), epoch, "m", state, exit,
                state == AttemptState.FAILED ? FailureReason.EXIT_CODE : null, now, state.isLive() ? null : now, "out", "");
    }

    private static long allocatedCpu() {
        return machines.get("m").orElseThrow().allocCpuMillis();
    }

    @Test
    void theHappyPathThenLateAndDuplicateReportsChangeNothing() {
        JobRecord job = placed(StoreFixture.aJob("happy"));
        long held = allocatedCpu();
        assertThat(reports.apply(report(job, 1, AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.APPLIED);
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(reports.apply(report(job, 1, AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.DUPLICATE);

        assertThat(reports.apply(report(job, 1, AttemptState.SUCCEEDED, 0))).isEqualTo(AttemptReports.Outcome.APPLIED);
        JobRecord done = f.jobs.get(job.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.exitCode()).isZero();
        assertThat(allocatedCpu()).isEqualTo(held - 1000);

        // a duplicate end, and a late start, after the end: no change at all
        assertThat(reports.apply(report(job, 1, AttemptState.SUCCEEDED, 0))).isEqualTo(AttemptReports.Outcome.DUPLICATE);
        assertThat(reports.apply(report(job, 1, AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.DUPLICATE);
        assertThat(f.jobs.get(job.id()).orElseThrow()).isEqualTo(done);
        assertThat(allocatedCpu()).isEqualTo(held - 1000);
    }

    @Test
    void aStaleEpochOrAnotherMachineIsIgnored() {
        JobRecord job = placed(StoreFixture.aJob("stale"));
        assertThat(reports.apply(report(job, 2, AttemptState.SUCCEEDED, 0))).isEqualTo(AttemptReports.Outcome.STALE);
        AttemptReport otherMachine = new AttemptReport(job.id(), 1, 1, "not-m", AttemptState.FAILED, 1, FailureReason.EXIT_CODE,
                null, Instant.now(), null, null);
        assertThat(reports.apply(otherMachine)).isEqualTo(AttemptReports.Outcome.STALE);
        AttemptReport noSuchAttempt = new AttemptReport(job.id(), 9, 1, "m", AttemptState.RUNNING, null, null, null, null,
                null, null);
        assertThat(reports.apply(noSuchAttempt)).isEqualTo(AttemptReports.Outcome.STALE);
        assertThat(f.jobs.get(job.id()).orElseThrow()).isEqualTo(job);
    }

    @Test
    void anEndReportedBeforeTheStartEndsTheJobAndTheStartComesTooLate() {
        JobRecord job = placed(StoreFixture.aJob("out-of-order"));
        assertThat(reports.apply(report(job, 1, AttemptState.FAILED, 2))).isEqualTo(AttemptReports.Outcome.APPLIED);
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.FAILED);
        assertThat(reports.apply(report(job, 1, AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.DUPLICATE);
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.FAILED);
    }

    @Test
    void aRetryableExitQueuesTheJobAgainWithABackoffAndAnotherIsFinal() {
        JobSpec spec = new JobSpec("retry", null, null, Resources.of(1, 256), null, Execution.of("x"),
                new RetryPolicy(3, List.of(75), 5, 60), null);
        JobRecord job = placed(spec);
        reports.apply(report(job, 1, AttemptState.RUNNING, null));
        reports.apply(report(job, 1, AttemptState.FAILED, 75));
        JobRecord again = f.jobs.get(job.id()).orElseThrow();
        assertThat(again.state()).isEqualTo(JobState.QUEUED);
        assertThat(again.userFailures()).isEqualTo(1);
        assertThat(again.machineId()).isNull();
        assertThat(again.notBefore()).isAfterOrEqualTo(job.updatedAt());
        assertThat(again.stateReason()).contains("retryable code 75");

        JobRecord second = placed2(again);
        reports.apply(report(second, 1, AttemptState.FAILED, 1));
        JobRecord failed = f.jobs.get(job.id()).orElseThrow();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).isEqualTo(FailureReason.EXIT_CODE);
        assertThat(failed.exitCode()).isEqualTo(1);
    }

    /** Places an already queued job again (its next attempt). */
    private static JobRecord placed2(JobRecord queued) {
        f.jdbc.sql("update jobs set not_before = now() where id = :id").param("id", queued.id()).update();
        f.jobs.inTransaction(() -> {
            ClaimedJob claimed = placement.reclaim(List.of(queued.id())).getFirst();
            return placement.commit(List.of(new PlacementStore.NewAttempt(claimed, "m", 1000, 256, 0)), List.of(),
                    Duration.ofSeconds(30));
        });
        return f.jobs.get(queued.id()).orElseThrow();
    }

    @Test
    void aFailureOfAJobAskedToCancelEndsItCanceled() {
        JobRecord job = placed(StoreFixture.aJob("cancel"));
        reports.apply(report(job, 1, AttemptState.RUNNING, null));
        JobRecord running = f.jobs.get(job.id()).orElseThrow();
        f.jobs.requestCancel(running).orElseThrow();
        reports.apply(report(job, 1, AttemptState.FAILED, 143));
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.CANCELED);
    }

    @Test
    void aRestartedAgentsAttemptsEndOnThePlatformsBudget() {
        JobRecord job = placed(StoreFixture.aJob("restart"));
        assertThat(reports.endLiveAttempts("m", FailureReason.AGENT_RESTARTED)).isPositive();
        JobRecord after = f.jobs.get(job.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(JobState.QUEUED);
        assertThat(after.infraFailures()).isEqualTo(1);
        assertThat(after.userFailures()).isZero();
        assertThat(after.failureReason()).isEqualTo(FailureReason.AGENT_RESTARTED);
    }
}
