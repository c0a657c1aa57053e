package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.RetryPolicy;
import io.fleetjobs.model.agent.AttemptReport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Applying reports in batches ends where applying them one by one ends: twin jobs get the same
 * scripted reports (starts, ends, duplicates, late and stale ones), one twin's applied one at a time,
 * the other's interleaved with other jobs' in a few {@link AttemptReports#applyAll} batches.
 */
class AttemptReportsBatchTest {
    private static final int JOBS = 60;

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
        machines.register("one-by-one", "eu", Map.of(), null, 640_000, 655_360, 0);
        machines.register("batched", "eu", Map.of(), null, 640_000, 655_360, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static JobRecord placed(String name, String machine) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("true"),
                new RetryPolicy(3, List.of(3), 1, 10), null);
        JobRecord job = ((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job();
        JobRecord queued = f.jobs.transition(job, Transition.admit()).orElseThrow();
        f.jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(queued.id())).getFirst(), machine, 1000, 256, 0)), List.of(), Duration.ofSeconds(30)));
        return f.jobs.get(job.id()).orElseThrow();
    }

    /** A script of reports for a job placed as attempt 1, epoch 1, on {@code machine}. */
    private static List<AttemptReport> script(int kind, JobRecord job, String machine) {
        Instant t = Instant.parse("2026-11-30T12:00:00Z");
        Function<AttemptState, AttemptReport> on = state -> report(job, f.epoch(job), machine, state, null, null, t);
        AttemptReport succeeded = report(job, f.epoch(job), machine, AttemptState.SUCCEEDED, 0, null, t);
        AttemptReport failed = report(job, f.epoch(job), machine, AttemptState.FAILED, 3, FailureReason.EXIT_CODE, t);
        return switch (kind) {
            case 0 -> List.of(on.apply(AttemptState.RUNNING), succeeded);
            case 1 -> List.of(on.apply(AttemptState.RUNNING), on.apply(AttemptState.RUNNING), failed);
            case 2 -> List.of(succeeded);
            case 3 -> List.of(on.apply(AttemptState.RUNNING), succeeded, on.apply(AttemptState.RUNNING), succeeded);
            case 4 -> List.of(report(job, 2, machine, AttemptState.RUNNING, null, null, t), on.apply(AttemptState.RUNNING));
            case 5 -> List.of(report(job, f.epoch(job), "elsewhere", AttemptState.RUNNING, null, null, t),
                    on.apply(AttemptState.CANCELED));
            case 6 -> List.of(on.apply(AttemptState.RUNNING),
                    report(job, f.epoch(job), machine, AttemptState.FAILED, null, FailureReason.MACHINE_LOST, t));
            default -> List.of(on.apply(AttemptState.RUNNING), failed, succeeded);
        };
    }

    private static AttemptReport report(JobRecord job, long epoch, String machine, AttemptState state, Integer exit,
            FailureReason reason, Instant t) {
        return new AttemptReport(job.id(), job.attempt(), epoch, machine, state, exit, reason, t,
                state.isLive() ? null : t.plusSeconds(1), "out", "err");
    }

    /** What must agree between twins. */
    private record Outcome(Object state, int attempt, Integer exitCode, Object failure, int userFailures,
            int infraFailures, List<String> history, String attemptState, long version) {
    }

    private static Outcome outcome(JobRecord before) {
        JobRecord job = f.jobs.get(before.id()).orElseThrow();
        Histories.assertWellFormed(f, job, "after reports");
        String attemptState = f.jdbc.sql("select state from attempts where job_id = :id and attempt = 1")
                .param("id", job.id()).query(String.class).single();
        return new Outcome(job.state(), job.attempt(), job.exitCode(), job.failureReason(), job.userFailures(),
                job.infraFailures(), f.jobs.history(job.id()).stream().map(h -> h.to().name()).toList(), attemptState,
                job.version());
    }

    @Test
    void batchesEndWhereOneByOneEnds() {
        Random random = new Random(42);
        List<JobRecord> single = new ArrayList<>();
        List<JobRecord> batched = new ArrayList<>();
        List<List<AttemptReport>> singleScripts = new ArrayList<>();
        List<List<AttemptReport>> batchScripts = new ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            int kind = random.nextInt(8);
            JobRecord a = placed("one-" + i, "one-by-one");
            JobRecord b = placed("bat-" + i, "batched");
            single.add(a);
            batched.add(b);
            singleScripts.add(script(kind, a, "one-by-one"));
            batchScripts.add(script(kind, b, "batched"));
        }

        List<List<AttemptReports.Outcome>> singleOutcomes = new ArrayList<>();
        for (List<AttemptReport> s : singleScripts) {
            singleOutcomes.add(s.stream().map(reports::apply).toList());
        }

        // interleave all jobs' reports (each job's in its order), then apply in three batches
        List<int[]> order = new ArrayList<>(); // job, index in its script
        int[] next = new int[JOBS];
        int remaining = batchScripts.stream().mapToInt(List::size).sum();
        while (remaining > 0) {
            int j = random.nextInt(JOBS);
            if (next[j] < batchScripts.get(j).size()) {
                order.add(new int[] {j, next[j]++});
                remaining--;
            }
        }
        List<List<AttemptReports.Outcome>> batchOutcomes = new ArrayList<>();
        batchScripts.forEach(s -> batchOutcomes.add(new ArrayList<>()));
        int[] cuts = {0, order.size() / 3, order.size() / 3 + 1, order.size()};
        for (int c = 0; c + 1 < cuts.length; c++) {
            List<int[]> slice = order.subList(cuts[c], cuts[c + 1]);
            List<AttemptReports.Outcome> got = reports.applyAll(slice.stream()
                    .map(o -> batchScripts.get(o[0]).get(o[1])).toList());
            for (int k = 0; k < slice.size(); k++) {
                batchOutcomes.get(slice.get(k)[0]).add(got.get(k));
            }
        }

        for (int i = 0; i < JOBS; i++) {
            assertThat(batchOutcomes.get(i)).as("outcomes of job %d", i).isEqualTo(singleOutcomes.get(i));
            assertThat(outcome(batched.get(i))).as("job %d", i).isEqualTo(outcome(single.get(i)));
        }
        var one = machines.get("one-by-one").orElseThrow();
        var bat = machines.get("batched").orElseThrow();
        assertThat(bat.machine().allocated().cpuMillis()).isEqualTo(one.machine().allocated().cpuMillis());
        assertThat(bat.machine().allocated().memoryMb()).isEqualTo(one.machine().allocated().memoryMb());
        assertThat(f.count("select count(*) from attempts where released_at is not null and state in ('SCHEDULED', 'RUNNING')"))
                .isZero();
    }

    @Test
    void anAttemptAnotherTransactionHoldsIsBusyForApplyAvailableAndChangesNothing() throws Exception {
        JobRecord job = placed("held", "batched");
        Instant t = Instant.parse("2026-11-30T12:00:00Z");
        AttemptReport end = report(job, f.epoch(job), "batched", AttemptState.SUCCEEDED, 0, null, t);
        try (var other = f.dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (var lock = other.prepareStatement("select 1 from attempts where job_id = ? and attempt = 1 for update")) {
                lock.setObject(1, job.id());
                lock.executeQuery().close();
            }
            assertThat(reports.applyAvailable(List.of(end))).containsExactly(AttemptReports.Outcome.BUSY);
            assertThat(f.jobs.get(job.id()).orElseThrow().version()).isEqualTo(job.version());
            other.rollback();
        }
        assertThat(reports.applyAvailable(List.of(end))).containsExactly(AttemptReports.Outcome.APPLIED);
        assertThat(reports.applyAvailable(List.of(end))).containsExactly(AttemptReports.Outcome.DUPLICATE);
    }

    @Test
    void aStartAndAnEndInOneBatchBothReachTheHistory() {
        JobRecord job = placed("both", "batched");
        Instant t = Instant.parse("2026-11-30T12:00:00Z");
        long heldBefore = machines.get("batched").orElseThrow().machine().allocated().cpuMillis();
        List<AttemptReports.Outcome> got = reports.applyAll(List.of(
                report(job, f.epoch(job), "batched", AttemptState.RUNNING, null, null, t),
                report(job, f.epoch(job), "batched", AttemptState.SUCCEEDED, 0, null, t)));
        assertThat(got).containsExactly(AttemptReports.Outcome.APPLIED, AttemptReports.Outcome.APPLIED);
        assertThat(f.jobs.history(job.id()).stream().map(h -> h.to().name()))
                .containsExactly("SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING", "SUCCEEDED");
        assertThat(machines.get("batched").orElseThrow().machine().allocated().cpuMillis()).isEqualTo(heldBefore - 1000);
    }

    @Test
    void aHeartbeatSkipsAMachineRowAnotherTransactionHoldsUntilItIsFree() throws Exception {
        machines.register("busy", "eu", Map.of(), null, 64_000, 65_536, 0);
        machines.register("idle", "eu", Map.of(), null, 64_000, 65_536, 0);
        Instant at = Instant.parse("2030-01-01T00:00:00Z");
        String seen = "select count(*) from machines where id = '%s' and last_heartbeat_at = '2030-01-01T00:00:00Z'";
        try (var other = f.dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (var lock = other.prepareStatement("select 1 from machines where id = 'busy' for no key update")) {
                lock.executeQuery().close();
            }
            assertThat(machines.heartbeatsAvailable(Map.of("busy", at, "idle", at))).containsExactly("idle");
            assertThat(f.count(seen.formatted("idle"))).isOne();
            assertThat(f.count(seen.formatted("busy"))).isZero();
            other.rollback();
        }
        assertThat(machines.heartbeatsAvailable(Map.of("busy", at))).containsExactly("busy");
        assertThat(f.count(seen.formatted("busy"))).isOne();
    }
}
