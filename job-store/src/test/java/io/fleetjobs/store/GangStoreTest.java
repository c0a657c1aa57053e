package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.GangRendezvous;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.Placement;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.RetryPolicy;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.testsupport.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A gang in the store: placed whole or not at all, its replicas' ends decided together. */
class GangStoreTest {
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
        for (String m : List.of("g-a", "g-b", "g-c")) {
            machines.register(m, "eu", Map.of(), null, 4_000, 8_192, 0);
            machines.recordAddress(m, m + ".example");
        }
        machines.register("g-tiny", "eu", Map.of(), null, 500, 8_192, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static JobRecord queuedGang(String name, int replicas, RetryPolicy retry) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("true"), retry, null, null,
                replicas);
        JobRecord job = ((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job();
        return f.jobs.transition(job, Transition.admit()).orElseThrow();
    }

    private static PlacementStore.CommitResult place(UUID job, List<String> onMachines) {
        return f.jobs.inTransaction(() -> {
            ClaimedJob claimed = placement.reclaim(List.of(job)).getFirst();
            List<PlacementStore.NewAttempt> attempts = new ArrayList<>();
            for (int rank = 0; rank < onMachines.size(); rank++) {
                attempts.add(new PlacementStore.NewAttempt(claimed, onMachines.get(rank), new Amounts(1000, 256, 0), rank));
            }
            return placement.commit(attempts, List.of(), Duration.ofSeconds(30));
        });
    }

    private static long epoch(UUID job, int attempt, int replica) {
        return f.jdbc.sql("select lease_epoch from attempts where job_id = :id and attempt = :n and replica = :r")
                .param("id", job).param("n", attempt).param("r", replica).query(Long.class).single();
    }

    private static AttemptReport report(UUID job, int attempt, int replica, String machine, AttemptState state,
            Integer exit, FailureReason reason) {
        Instant now = clock.instant();
        return new AttemptReport(job, attempt, epoch(job, attempt, replica), machine, state, exit, reason, now,
                state.isLive() ? null : now, "", "");
    }

    private static long allocatedCpu(String machine) {
        return machines.get(machine).orElseThrow().machine().allocated().cpuMillis();
    }

    @Test
    void aGangIsWrittenWholeWithRanksWorldSizeAndPeers() {
        JobRecord job = queuedGang("whole", 3, null);
        PlacementStore.CommitResult result = place(job.id(), List.of("g-a", "g-b", "g-c"));
        assertThat(result.scheduled()).hasSize(3);
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        List<AttemptRecord> attempts = f.jobs.attempts(job.id());
        assertThat(attempts).extracting(AttemptRecord::replica).containsExactly(0, 1, 2);
        assertThat(attempts).extracting(AttemptRecord::worldSize).containsOnly(3);
        assertThat(attempts).extracting(AttemptRecord::attempt).containsOnly(1);

        int port = GangRendezvous.port(job.id(), 1);
        var live = machines.liveAttempts("g-b").stream().filter(a -> a.jobId().equals(job.id())).findFirst().orElseThrow();
        assertThat(live.gang().rank()).isEqualTo(1);
        assertThat(live.gang().worldSize()).isEqualTo(3);
        assertThat(live.gang().peers()).containsExactly("g-a.example:" + port, "g-b.example:" + port, "g-c.example:" + port);

        // finish it, so the machines are free for the next tests
        for (int r = 0; r < 3; r++) {
            String m = attempts.get(r).machineId();
            reports.apply(report(job.id(), 1, r, m, AttemptState.SUCCEEDED, 0, null));
            assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(r < 2 ? JobState.RUNNING : JobState.SUCCEEDED);
        }
        assertThat(allocatedCpu("g-a") + allocatedCpu("g-b") + allocatedCpu("g-c")).isZero();
    }

    @Test
    void aGangOneOfWhoseMachinesLacksRoomIsNotPlacedAtAll() {
        JobRecord job = queuedGang("no-room", 2, null);
        PlacementStore.CommitResult result = place(job.id(), List.of("g-a", "g-tiny"));
        assertThat(result.scheduled()).isEmpty();
        assertThat(result.conflicts()).containsExactly(job.id());
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.QUEUED);
        assertThat(f.jobs.attempts(job.id())).isEmpty();
        assertThat(allocatedCpu("g-a")).isZero();
    }

    @Test
    void oneFailedReplicaEndsTheOthersAndTheGangIsRetriedAsAWholeOnceAllHaveEnded() {
        JobRecord job = queuedGang("fails", 3, new RetryPolicy(3, List.of(3), null, null));
        place(job.id(), List.of("g-a", "g-b", "g-c"));
        for (int r = 0; r < 3; r++) {
            reports.apply(report(job.id(), 1, r, List.of("g-a", "g-b", "g-c").get(r), AttemptState.RUNNING, null, null));
        }
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);

        reports.apply(report(job.id(), 1, 1, "g-b", AttemptState.FAILED, 3, FailureReason.EXIT_CODE));
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).as("the job waits for its other replicas")
                .isEqualTo(JobState.RUNNING);
        assertThat(machines.liveAttempts("g-a").stream().filter(a -> a.jobId().equals(job.id())))
                .singleElement().satisfies(a -> assertThat(a.gangFailed()).isTrue());
        assertThat(machines.liveAttempts("g-c").stream().filter(a -> a.jobId().equals(job.id())))
                .singleElement().satisfies(a -> assertThat(a.gangFailed()).isTrue());

        reports.apply(report(job.id(), 1, 0, "g-a", AttemptState.FAILED, 143, FailureReason.GANG_MEMBER_FAILED));
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        reports.apply(report(job.id(), 1, 2, "g-c", AttemptState.FAILED, 143, FailureReason.GANG_MEMBER_FAILED));

        JobRecord retried = f.jobs.get(job.id()).orElseThrow();
        assertThat(retried.state()).as("retried as a whole, by the first replica's failure").isEqualTo(JobState.QUEUED);
        assertThat(retried.exitCode()).isEqualTo(3);
        assertThat(retried.failureReason()).isEqualTo(FailureReason.EXIT_CODE);
        assertThat(retried.userFailures()).isEqualTo(1);
        assertThat(allocatedCpu("g-a") + allocatedCpu("g-b") + allocatedCpu("g-c")).isZero();

        // the retry places all three replicas again under the next attempt number
        f.jdbc.sql("update jobs set not_before = :now where id = :id").param("now", JobRows.ts(clock.instant()))
                .param("id", job.id()).update();
        assertThat(place(job.id(), List.of("g-c", "g-a", "g-b")).scheduled()).hasSize(3);
        assertThat(f.jobs.attempts(job.id()).stream().filter(a -> a.attempt() == 2)).hasSize(3);
        for (int r = 0; r < 3; r++) {
            reports.apply(report(job.id(), 2, r, List.of("g-c", "g-a", "g-b").get(r), AttemptState.SUCCEEDED, 0, null));
        }
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
    }

    @Test
    void aReportOfOneReplicaNeverMovesAnother() {
        JobRecord job = queuedGang("fenced", 2, null);
        place(job.id(), List.of("g-a", "g-b"));
        AttemptReport ofReplicaZero = report(job.id(), 1, 0, "g-a", AttemptState.RUNNING, null, null);
        AttemptReport fromTheWrongMachine = new AttemptReport(job.id(), 1, ofReplicaZero.epoch(), "g-b",
                AttemptState.RUNNING, null, null, clock.instant(), null, null, null);
        assertThat(reports.apply(fromTheWrongMachine)).isEqualTo(AttemptReports.Outcome.STALE);
        assertThat(reports.apply(ofReplicaZero)).isEqualTo(AttemptReports.Outcome.APPLIED);
        assertThat(f.jobs.attempts(job.id())).extracting(AttemptRecord::state)
                .containsExactly(AttemptState.RUNNING, AttemptState.SCHEDULED);
        reports.apply(report(job.id(), 1, 0, "g-a", AttemptState.CANCELED, 143, null));
        reports.apply(report(job.id(), 1, 1, "g-b", AttemptState.FAILED, null, FailureReason.GANG_MEMBER_FAILED));
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.CANCELED);
    }

    @Test
    void asHeartbeatsSayIt() {
        JobRecord job = queuedGang("heartbeats", 3, new RetryPolicy(3, List.of(3), 0, null));
        place(job.id(), List.of("g-a", "g-b", "g-c"));
        reports.applyAvailable(List.of(report(job.id(), 1, 2, "g-c", AttemptState.RUNNING, null, null)));
        reports.applyAvailable(List.of(report(job.id(), 1, 0, "g-a", AttemptState.RUNNING, null, null)));
        reports.applyAvailable(List.of(report(job.id(), 1, 1, "g-b", AttemptState.FAILED, 3, FailureReason.EXIT_CODE)));
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        reports.applyAvailable(List.of(report(job.id(), 1, 2, "g-c", AttemptState.FAILED, 143,
                FailureReason.GANG_MEMBER_FAILED)));
        reports.applyAvailable(List.of(report(job.id(), 1, 0, "g-a", AttemptState.FAILED, 143,
                FailureReason.GANG_MEMBER_FAILED)));
        JobRecord retried = f.jobs.get(job.id()).orElseThrow();
        assertThat(retried.state()).as(retried.toString()).isEqualTo(JobState.QUEUED);
        assertThat(allocatedCpu("g-a") + allocatedCpu("g-b") + allocatedCpu("g-c")).isZero();
        f.jdbc.sql("update jobs set not_before = :now where id = :id").param("now", JobRows.ts(clock.instant()))
                .param("id", job.id()).update();
        List<ClaimedJob> claimed = f.jobs.inTransaction(() -> placement.claim(100));
        assertThat(claimed).extracting(ClaimedJob::id).contains(job.id());
        assertThat(claimed.stream().filter(c -> c.id().equals(job.id())).findFirst().orElseThrow().replicas()).isEqualTo(3);
    }
}
