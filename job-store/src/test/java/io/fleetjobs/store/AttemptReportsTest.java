package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.RetryPolicy;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.testsupport.SettableClock;
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
    private static final SettableClock clock = new SettableClock(Instant.parse("2030-01-01T00:00:00Z"));
    private static StoreFixture f;
    private static AttemptReports reports;
    private static PlacementStore placement;
    private static MachineStore machines;

    @BeforeAll
    static void start() {
        f = new StoreFixture(4, clock);
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(7));
        placement = new PlacementStore(f.jdbc, f.jobs);
        machines = new MachineStore(f.jdbc, f.jobs.clock());
        machines.register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    /** A job placed on machine m as attempt 1. */
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
        Instant now = clock.instant();
        return new AttemptReport(job.id(), job.attempt(), epoch, "m", state, exit,
                state == AttemptState.FAILED ? FailureReason.EXIT_CODE : null, now, state.isLive() ? null : now, "out", "");
    }

    private static long allocatedCpu() {
        return machines.get("m").orElseThrow().machine().allocated().cpuMillis();
    }

    @Test
    void theHappyPathThenLateAndDuplicateReportsChangeNothing() {
        JobRecord job = placed(StoreFixture.aJob("happy"));
        long held = allocatedCpu();
        assertThat(reports.apply(report(job, f.epoch(job), AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.APPLIED);
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(reports.apply(report(job, f.epoch(job), AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.DUPLICATE);

        assertThat(reports.apply(report(job, f.epoch(job), AttemptState.SUCCEEDED, 0))).isEqualTo(AttemptReports.Outcome.APPLIED);
        JobRecord done = f.jobs.get(job.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.exitCode()).isZero();
        assertThat(states(done)).containsExactly(JobState.SUBMITTED, JobState.QUEUED, JobState.SCHEDULED, JobState.RUNNING,
                JobState.SUCCEEDED);
        assertThat(allocatedCpu()).isEqualTo(held - 1000);

        // a duplicate end, and a late start, after the end: no change at all
        assertThat(reports.apply(report(job, f.epoch(job), AttemptState.SUCCEEDED, 0))).isEqualTo(AttemptReports.Outcome.DUPLICATE);
        assertThat(reports.apply(report(job, f.epoch(job), AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.DUPLICATE);
        assertThat(f.jobs.get(job.id()).orElseThrow()).isEqualTo(done);
        assertThat(allocatedCpu()).isEqualTo(held - 1000);
    }

    @Test
    void anAgentsSkewedClockNeitherEndsAnAttemptEarlyNorDatesItOutsideWhatTheControlPlaneSaw() {
        // the agent's clock is not ours: an hour behind, its start would put a 10-minute job past its time limit at
        // once (the heartbeat's backstop kills it "timed out"); an hour ahead, its end would lie in the future
        JobRecord job = placed(new JobSpec("skewed", null, null, Resources.of(1, 256), null,
                new Execution(List.of("true"), Map.of(), 600), null, null));
        clock.advance(Duration.ofSeconds(2));
        Instant now = clock.instant();
        long epoch = f.epoch(job);
        assertThat(reports.apply(new AttemptReport(job.id(), 1, epoch, "m", AttemptState.RUNNING, null, null,
                now.minus(Duration.ofHours(1)), null, null, null))).isEqualTo(AttemptReports.Outcome.APPLIED);
        AttemptRecord running = f.jobs.attempts(job.id()).getFirst();
        assertThat(running.startedAt()).isBetween(running.scheduledAt(), now);
        AssignedAttempt live = machines.liveAttempts("m").stream().filter(a -> a.jobId().equals(job.id())).findFirst()
                .orElseThrow();
        assertThat(live.timeLimitEndsAt()).isAfterOrEqualTo(running.scheduledAt().plusSeconds(600));

        clock.advance(Duration.ofSeconds(3));
        Instant end = clock.instant();
        assertThat(reports.apply(new AttemptReport(job.id(), 1, epoch, "m", AttemptState.SUCCEEDED, 0, null,
                end.plus(Duration.ofHours(1)), end.plus(Duration.ofHours(1)), "", ""))).isEqualTo(AttemptReports.Outcome.APPLIED);
        AttemptRecord ended = f.jobs.attempts(job.id()).getFirst();
        assertThat(ended.startedAt()).isEqualTo(running.startedAt());
        assertThat(ended.finishedAt()).isBetween(ended.startedAt(), end);

        // an attempt whose start the control plane never saw, ended at once, on a clock an hour behind
        JobRecord quick = placed(StoreFixture.aJob("quick-skewed"));
        clock.advance(Duration.ofSeconds(1));
        Instant at = clock.instant();
        assertThat(reports.apply(new AttemptReport(quick.id(), 1, f.epoch(quick), "m", AttemptState.SUCCEEDED, 0, null,
                at.minus(Duration.ofHours(1)), at.minus(Duration.ofHours(1)), "", ""))).isEqualTo(AttemptReports.Outcome.APPLIED);
        AttemptRecord quickEnd = f.jobs.attempts(quick.id()).getFirst();
        assertThat(quickEnd.startedAt()).isBetween(quickEnd.scheduledAt(), at);
        assertThat(quickEnd.finishedAt()).isBetween(quickEnd.startedAt(), at);
    }

    @Test
    void anOversizedTailIsCutToItsLast64KiBBeforeItIsStored() {
        JobRecord job = placed(StoreFixture.aJob("chatty"));
        String stdout = "x".repeat(5 * 1024 * 1024) + "the last line";
        String stderr = "e".repeat(70_000);
        Instant now = clock.instant();
        assertThat(reports.apply(new AttemptReport(job.id(), 1, f.epoch(job), "m", AttemptState.FAILED, 1, FailureReason.EXIT_CODE,
                now, now, stdout, stderr))).isEqualTo(AttemptReports.Outcome.APPLIED);
        JobStore.Logs logs = f.jobs.logs(job.id(), 1, 0).orElseThrow();
        assertThat(logs.stdout()).hasSize(64 * 1024).endsWith("the last line");
        assertThat(logs.stderr()).isEqualTo("e".repeat(64 * 1024));
        assertThat(f.count("select max(octet_length(log_tail_stdout)) from attempts")).isEqualTo(64 * 1024);
    }

    @Test
    void aJobThatPrintedNulBytesEndsAndSoDoesEveryOtherEndOfTheSameHeartbeat() {
        // PostgreSQL's text refuses U+0000: the tail failed the batch's statement, every end of the heartbeat with it
        JobRecord binary = placed(StoreFixture.aJob("prints-nul"));
        JobRecord neighbour = placed(StoreFixture.aJob("neighbour"));
        Instant now = clock.instant();
        List<AttemptReports.Outcome> outcomes = reports.applyAvailable(List.of(
                new AttemptReport(binary.id(), 1, f.epoch(binary), "m", AttemptState.SUCCEEDED, 0, null, now, now,
                        "a\0b\n", "\0"),
                report(neighbour, f.epoch(neighbour), AttemptState.SUCCEEDED, 0)));
        assertThat(outcomes).containsOnly(AttemptReports.Outcome.APPLIED);
        assertThat(f.jobs.get(binary.id()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(f.jobs.get(neighbour.id()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        JobStore.Logs logs = f.jobs.logs(binary.id(), 1, 0).orElseThrow();
        assertThat(logs.stdout()).isEqualTo("a\uFFFDb\n");
        assertThat(logs.stderr()).isEqualTo("\uFFFD");
    }

    @Test
    void aStaleEpochOrAnotherMachineIsIgnored() {
        JobRecord job = placed(StoreFixture.aJob("stale"));
        // what jobs.events shows (job id, attempt 1) and the epoch every lease once had do not name this lease
        assertThat(f.epoch(job)).isNotEqualTo(1);
        assertThat(reports.apply(report(job, 1, AttemptState.SUCCEEDED, 0))).isEqualTo(AttemptReports.Outcome.STALE);
        assertThat(reports.apply(report(job, f.epoch(job) + 1, AttemptState.SUCCEEDED, 0))).isEqualTo(AttemptReports.Outcome.STALE);
        AttemptReport otherMachine = new AttemptReport(job.id(), 1, f.epoch(job), "not-m", AttemptState.FAILED, 1, FailureReason.EXIT_CODE,
                null, Instant.now(), null, null);
        assertThat(reports.apply(otherMachine)).isEqualTo(AttemptReports.Outcome.STALE);
        AttemptReport noSuchAttempt = new AttemptReport(job.id(), 9, f.epoch(job), "m", AttemptState.RUNNING, null, null, null, null,
                null, null);
        assertThat(reports.apply(noSuchAttempt)).isEqualTo(AttemptReports.Outcome.STALE);
        assertThat(f.jobs.get(job.id()).orElseThrow()).isEqualTo(job);
    }

    @Test
    void anEndReportedBeforeTheStartEndsTheJobAndTheStartComesTooLate() {
        JobRecord job = placed(StoreFixture.aJob("out-of-order"));
        assertThat(reports.apply(report(job, f.epoch(job), AttemptState.FAILED, 2))).isEqualTo(AttemptReports.Outcome.APPLIED);
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.FAILED);
        assertThat(reports.apply(report(job, f.epoch(job), AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.DUPLICATE);
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.FAILED);
    }

    @Test
    void aRetryableExitQueuesTheJobAgainWithABackoffAndAnotherIsFinal() {
        JobSpec spec = new JobSpec("retry", null, null, Resources.of(1, 256), null, Execution.of("x"),
                new RetryPolicy(3, List.of(75), 5, 60), null);
        JobRecord job = placed(spec);
        reports.apply(report(job, f.epoch(job), AttemptState.RUNNING, null));
        reports.apply(report(job, f.epoch(job), AttemptState.FAILED, 75));
        JobRecord again = f.jobs.get(job.id()).orElseThrow();
        assertThat(again.state()).isEqualTo(JobState.QUEUED);
        assertThat(again.userFailures()).isEqualTo(1);
        assertThat(again.machineId()).isNull();
        assertThat(again.notBefore()).isAfterOrEqualTo(job.updatedAt());
        assertThat(again.stateReason()).contains("retryable code 75");

        JobRecord second = placed2(again);
        assertThat(f.epoch(second)).as("the retry's lease is a later fencing token").isGreaterThan(f.epoch(job));
        reports.apply(report(second, f.epoch(second), AttemptState.FAILED, 1));
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
        reports.apply(report(job, f.epoch(job), AttemptState.RUNNING, null));
        JobRecord running = f.jobs.get(job.id()).orElseThrow();
        f.jobs.requestCancel(running).orElseThrow();
        reports.apply(report(job, f.epoch(job), AttemptState.FAILED, 143));
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.CANCELED);
    }

    /** Canceled while it waits for its retry: its end is the cancel, not the failure of the attempt before. */
    @Test
    void aJobCanceledWhileQueuedForItsRetryEndsWithoutTheEarlierAttemptsOutcome() {
        JobRecord job = placed(StoreFixture.aJob("retried-then-canceled"));
        reports.endLiveAttempts("m", FailureReason.AGENT_RESTARTED);
        JobRecord queued = f.jobs.get(job.id()).orElseThrow();
        assertThat(queued.failureReason()).as("why it waits for a retry").isEqualTo(FailureReason.AGENT_RESTARTED);

        JobRecord canceled = f.jobs.transition(queued, Transition.cancel("canceled by user")).orElseThrow();
        assertThat(canceled.state()).isEqualTo(JobState.CANCELED);
        assertThat(canceled.failureReason()).isNull();
        assertThat(canceled.exitCode()).isNull();
        assertThat(f.jobs.get(job.id()).orElseThrow().failureReason()).isNull();
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
        assertThat(states(after)).as("never started: no run in its history").doesNotContain(JobState.RUNNING);
    }

    // ---- a start the agent reported only with the end (a quick job) ------------------------------

    private static JobSpec retrying(String name) {
        return new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("x"),
                new RetryPolicy(3, List.of(75), 5, 60), null);
    }

    /** The end of attempt 1 on m, of a process that started at {@code startedAt} and ran a second. */
    private static AttemptReport ended(JobRecord job, AttemptState state, Integer exit, FailureReason reason,
            Instant startedAt) {
        return new AttemptReport(job.id(), job.attempt(), f.epoch(job), "m", state, exit, reason, startedAt, startedAt.plusSeconds(1),
                "out", "");
    }

    private static JobRecord now(JobRecord job) {
        return f.jobs.get(job.id()).orElseThrow();
    }

    private static List<JobState> states(JobRecord job) {
        return f.jobs.history(job.id()).stream().map(HistoryEntry::to).toList();
    }

    /** The job's events, in the order the relay publishes them. */
    private static List<JobEvent> events(JobRecord job) {
        return f.eventPayloads(job.id()).stream().map(p -> Json.read(p, JobEvent.class)).toList();
    }

    /**
     * The job was placed, ran on m from {@code runningAt}, and ended {@code end} now; each change has its
     * event, with the history row's version, states and time, in order.
     */
    private static void assertRanThenEnded(JobRecord job, Instant runningAt, JobState end) {
        Histories.assertWellFormed(f, job, job.spec().name());
        List<HistoryEntry> history = f.jobs.history(job.id());
        assertThat(history).extracting(HistoryEntry::to).containsExactly(JobState.SUBMITTED, JobState.QUEUED,
                JobState.SCHEDULED, JobState.RUNNING, end);
        HistoryEntry running = history.get(3);
        assertThat(running.from()).isEqualTo(JobState.SCHEDULED);
        assertThat(running.reason()).isEqualTo("running on m");
        assertThat(running.at()).as("when it started").isEqualTo(runningAt);
        assertThat(history.get(4).at()).as("when the end was applied").isEqualTo(job.updatedAt()).isEqualTo(clock.instant());
        List<JobEvent> events = events(job);
        assertThat(events).extracting(JobEvent::jobVersion).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(events).extracting(JobEvent::to).containsExactlyElementsOf(history.stream().map(HistoryEntry::to).toList());
        assertThat(events).extracting(JobEvent::at).containsExactlyElementsOf(history.stream().map(HistoryEntry::at).toList());
        assertThat(events.get(3).reason()).isEqualTo("running on m");
    }

    @Test
    void anEndWithAStartOfAnAttemptNeverSeenRunningRecordsTheRunFirst() {
        JobRecord job = placed(StoreFixture.aJob("quick"));
        clock.advance(Duration.ofSeconds(5));
        Instant started = job.updatedAt().plusSeconds(2);
        assertThat(reports.apply(ended(job, AttemptState.SUCCEEDED, 0, null, started)))
                .isEqualTo(AttemptReports.Outcome.APPLIED);

        JobRecord done = now(job);
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.exitCode()).isZero();
        assertRanThenEnded(done, started, JobState.SUCCEEDED);
        assertThat(f.jobs.attempts(job.id()).getFirst().startedAt()).isEqualTo(started);
        // the start, when it comes after all, changes nothing
        assertThat(reports.apply(report(job, f.epoch(job), AttemptState.RUNNING, null))).isEqualTo(AttemptReports.Outcome.DUPLICATE);
        assertThat(now(job)).isEqualTo(done);
    }

    @Test
    void aStartReportedWithTheEndIsRecordedNoEarlierThanThePlacementAndNoLaterThanNow() {
        JobRecord behind = placed(StoreFixture.aJob("agent-clock-behind"));
        JobRecord ahead = placed(StoreFixture.aJob("agent-clock-ahead"));
        clock.advance(Duration.ofSeconds(5));
        reports.apply(ended(behind, AttemptState.SUCCEEDED, 0, null, behind.updatedAt().minusSeconds(60)));
        reports.apply(ended(ahead, AttemptState.SUCCEEDED, 0, null, clock.instant().plusSeconds(60)));
        assertRanThenEnded(now(behind), behind.updatedAt(), JobState.SUCCEEDED);
        assertRanThenEnded(now(ahead), clock.instant(), JobState.SUCCEEDED);
    }

    @Test
    void aRetriedFailureOfAnAttemptNeverSeenRunningRecordsTheRunFirst() {
        JobRecord job = placed(retrying("quick-retry"));
        clock.advance(Duration.ofSeconds(5));
        Instant started = job.updatedAt().plusSeconds(1);
        reports.apply(ended(job, AttemptState.FAILED, 75, FailureReason.EXIT_CODE, started));
        JobRecord again = now(job);
        assertThat(again.state()).isEqualTo(JobState.QUEUED);
        assertThat(again.userFailures()).isOne();
        assertThat(again.machineId()).isNull();
        assertRanThenEnded(again, started, JobState.QUEUED);
    }

    @Test
    void aBatchOfEndsWithStartsRecordsEachRunFirstAndOnlyWhereTheAttemptStarted() {
        JobRecord succeeded = placed(StoreFixture.aJob("batch-succeeded"));
        JobRecord retried = placed(retrying("batch-retried"));
        JobRecord failed = placed(StoreFixture.aJob("batch-failed"));
        JobRecord canceled = placed(StoreFixture.aJob("batch-canceled"));
        JobRecord runs = placed(StoreFixture.aJob("batch-runs"));
        JobRecord neverStarted = placed(StoreFixture.aJob("batch-never-started"));
        clock.advance(Duration.ofSeconds(5));
        Instant started = succeeded.updatedAt().plusSeconds(1); // all placed at the same instant

        List<AttemptReports.Outcome> got = reports.applyAll(List.of(
                ended(succeeded, AttemptState.SUCCEEDED, 0, null, started),
                ended(retried, AttemptState.FAILED, 75, FailureReason.EXIT_CODE, started.plusSeconds(1)),
                report(runs, f.epoch(runs), AttemptState.RUNNING, null),
                ended(failed, AttemptState.FAILED, 1, FailureReason.EXIT_CODE, started.plusSeconds(2)),
                new AttemptReport(neverStarted.id(), 1, f.epoch(neverStarted), "m", AttemptState.FAILED, null, FailureReason.START_FAILED,
                        null, clock.instant(), "", "no such file"),
                ended(canceled, AttemptState.CANCELED, 143, null, started.plusSeconds(3))));

        assertThat(got).containsOnly(AttemptReports.Outcome.APPLIED).hasSize(6);
        assertRanThenEnded(now(succeeded), started, JobState.SUCCEEDED);
        assertRanThenEnded(now(retried), started.plusSeconds(1), JobState.QUEUED);
        assertRanThenEnded(now(failed), started.plusSeconds(2), JobState.FAILED);
        assertRanThenEnded(now(canceled), started.plusSeconds(3), JobState.CANCELED);
        Histories.assertWellFormed(f, now(runs), "runs");
        assertThat(states(runs)).containsExactly(JobState.SUBMITTED, JobState.QUEUED, JobState.SCHEDULED, JobState.RUNNING);
        Histories.assertWellFormed(f, now(neverStarted), "never started");
        assertThat(states(neverStarted)).containsExactly(JobState.SUBMITTED, JobState.QUEUED, JobState.SCHEDULED,
                JobState.QUEUED);
    }

    @Test
    void anAttemptThatCouldNotStartRecordsNoRun() {
        JobRecord job = placed(StoreFixture.aJob("start-failed"));
        AttemptReport startFailed = new AttemptReport(job.id(), 1, f.epoch(job), "m", AttemptState.FAILED, null,
                FailureReason.START_FAILED, null, clock.instant(), "", "no such file");
        assertThat(reports.apply(startFailed)).isEqualTo(AttemptReports.Outcome.APPLIED);
        JobRecord after = now(job);
        Histories.assertWellFormed(f, after, "start failed");
        assertThat(states(after)).containsExactly(JobState.SUBMITTED, JobState.QUEUED, JobState.SCHEDULED, JobState.QUEUED);
        assertThat(after.failureReason()).isEqualTo(FailureReason.START_FAILED);
        assertThat(f.jobs.attempts(job.id()).getFirst().startedAt()).isNull();
    }

    @Test
    void aStartAndItsEndInOneBatchRecordTheRunOnce() {
        JobRecord job = placed(StoreFixture.aJob("start-and-end"));
        clock.advance(Duration.ofSeconds(5));
        Instant started = job.updatedAt().plusSeconds(1);
        AttemptReport start = new AttemptReport(job.id(), 1, f.epoch(job), "m", AttemptState.RUNNING, null, null, started, null,
                null, null);
        assertThat(reports.applyAll(List.of(start, ended(job, AttemptState.SUCCEEDED, 0, null, started))))
                .containsExactly(AttemptReports.Outcome.APPLIED, AttemptReports.Outcome.APPLIED);
        // the RUNNING report moved the job when it was applied, as ever; the end added no second run
        assertRanThenEnded(now(job), clock.instant(), JobState.SUCCEEDED);
    }

    @Test
    void anEndThatCarriesItsStartUpdatesTheJobRowOnce() {
        JobRecord quick = placed(StoreFixture.aJob("one-update"));
        JobRecord retried = placed(retrying("one-update-retried"));
        clock.advance(Duration.ofSeconds(5));
        Instant started = quick.updatedAt().plusSeconds(1);
        // new versions of jobs' rows (HOT or not) the reports wrote, as PostgreSQL counts them; read as a difference,
        // since the backend's counters may still hold its earlier transactions' until it reports them
        long updates = f.jobs.inTransaction(() -> {
            long before = jobRowsUpdated();
            reports.applyAll(List.of(ended(quick, AttemptState.SUCCEEDED, 0, null, started),
                    ended(retried, AttemptState.FAILED, 75, FailureReason.EXIT_CODE, started)));
            return jobRowsUpdated() - before;
        });
        assertThat(updates).as("one new version of each job's row, its start and end written together").isEqualTo(2);
        assertRanThenEnded(now(quick), started, JobState.SUCCEEDED);
        assertRanThenEnded(now(retried), started, JobState.QUEUED);
    }

    private static long jobRowsUpdated() {
        return f.jdbc.sql("select n_tup_upd from pg_stat_xact_user_tables where relname = 'jobs'").query(Long.class).single();
    }
}
