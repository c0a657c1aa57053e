package io.fleetjobs.reconciler.sweeps;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.Placement;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.reconciler.domain.Liveness;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.HeartbeatWatermarks;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.store.RepairStore;
import io.fleetjobs.store.Submission;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.store.Transition;
import io.fleetjobs.testsupport.SettableClock;
import io.fleetjobs.testsupport.TestDatabases;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** Each sweep against the real database, with a clock the test moves. */
class SweepsTest {
    private final SettableClock clock = SettableClock.atNow();
    private HikariDataSource ds;
    private JdbcClient jdbc;
    private JobStore jobs;
    private MachineStore machines;
    private PlacementStore placement;
    private AttemptReports reports;
    private RepairStore repair;
    private UUID tenant;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @BeforeEach
    void setUp() {
        ds = TestDatabases.create().dataSource(4);
        jdbc = JdbcClient.create(ds);
        jobs = new JobStore(jdbc, new DataSourceTransactionManager(ds), clock, null);
        machines = new MachineStore(jdbc, clock);
        placement = new PlacementStore(jdbc, jobs);
        reports = new AttemptReports(jdbc, jobs, new Random(3));
        repair = new RepairStore(jdbc);
        tenant = new TenantStore(jdbc, clock).create("t", 1, null, null, null).orElseThrow().id();
    }

    @AfterEach
    void tearDown() {
        ds.close();
    }

    private long epoch(JobRecord job) {
        return jobs.attempts(job.id()).getLast().leaseEpoch();
    }

    /** A job placed on {@code machine} (attempt 1), optionally started. */
    private JobRecord placed(String machine, boolean started, Integer timeoutSeconds) {
        JobSpec spec = new JobSpec("j", null, null, Resources.of(1, 256), Placement.ANYWHERE,
                new Execution(List.of("sleep", "100"), Map.of(), timeoutSeconds), null, null);
        JobRecord job = ((Submission.Accepted) jobs.submit(tenant, spec, null)).job();
        JobRecord queued = jobs.transition(job, Transition.admit()).orElseThrow();
        jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(queued.id())).getFirst(), machine, 1000, 256, 0)), List.of(), Duration.ofSeconds(30)));
        if (started) {
            reports.apply(new AttemptReport(job.id(), 1, epoch(job), machine, AttemptState.RUNNING, null, null, clock.instant(),
                    null, null, null));
        }
        return jobs.get(job.id()).orElseThrow();
    }

    private MachineLivenessSweep liveness() {
        return new MachineLivenessSweep(repair, reports, new Liveness(Duration.ofSeconds(6), Duration.ofSeconds(15), 0.5, 3),
                meters);
    }

    private MachineStatus status(String machine) {
        return machines.get(machine).orElseThrow().status();
    }

    @Test
    void aSilentMachineIsSuspectThenLostAndItsJobsGoBackToTheQueue() {
        machines.register("quiet", "eu", Map.of(), null, 8_000, 8_192, 0);
        machines.register("chatty", "eu", Map.of(), null, 8_000, 8_192, 0);
        JobRecord job = placed("quiet", true, null);
        MachineLivenessSweep sweep = liveness();

        clock.advance(Duration.ofSeconds(7));
        machines.heartbeats(Map.of("chatty", clock.instant()));
        sweep.run(clock.instant());
        assertThat(status("quiet")).isEqualTo(MachineStatus.SUSPECT);
        assertThat(jobs.get(job.id()).orElseThrow().state()).as("a suspect keeps its attempts").isEqualTo(JobState.RUNNING);

        clock.advance(Duration.ofSeconds(9));
        machines.heartbeats(Map.of("chatty", clock.instant()));
        sweep.run(clock.instant());
        assertThat(status("quiet")).isEqualTo(MachineStatus.LOST);
        assertThat(status("chatty")).isEqualTo(MachineStatus.READY);
        JobRecord after = jobs.get(job.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(JobState.QUEUED);
        assertThat(after.failureReason()).isEqualTo(FailureReason.MACHINE_LOST);
        assertThat(after.infraFailures()).isEqualTo(1);
        assertThat(machines.get("quiet").orElseThrow().machine().allocated().cpuMillis()).isZero();
        assertThat(sweep.run(clock.instant())).as("a second run finds nothing to do").isZero();

        // heard again: READY; its old attempt is not current any more (the heartbeat reply kills it)
        machines.heartbeats(Map.of("quiet", clock.instant()));
        sweep.run(clock.instant());
        assertThat(status("quiet")).isEqualTo(MachineStatus.READY);
        assertThat(jobs.attempts(job.id()).getFirst().state()).isEqualTo(AttemptState.FAILED);
    }

    @Test
    void aSchedulerTooBusyToWriteWhatItHeardNeverMakesItsMachinesLookSilent() {
        machines.register("heard", "eu", Map.of(), null, 8_000, 8_192, 0);
        JobRecord job = placed("heard", true, null);
        var watermarks = new HeartbeatWatermarks(jdbc, clock);
        MachineLivenessSweep sweep = new MachineLivenessSweep(repair, reports,
                new Liveness(Duration.ofSeconds(6), Duration.ofSeconds(15), 0.5, 3), meters, now -> Duration.ZERO,
                now -> watermarks.judgeAt(now, Duration.ofSeconds(15)));
        watermarks.record("scheduler-a", clock.instant());
        machines.heartbeats(Map.of("heard", clock.instant()));
        for (int second = 1; second <= 30; second++) {
            // the agent beats, but the scheduler's writer is stuck: its watermark stays, yet it is alive and says so
            clock.advance(Duration.ofSeconds(1));
            watermarks.record("scheduler-a", clock.instant().minusSeconds(second));
            sweep.run(clock.instant());
            assertThat(status("heard")).as("second " + second).isEqualTo(MachineStatus.READY);
        }
        assertThat(jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);

        // the writer catches up and the machine really is silent since: judged as before
        clock.advance(Duration.ofSeconds(16));
        watermarks.record("scheduler-a", clock.instant());
        sweep.run(clock.instant());
        assertThat(status("heard")).isEqualTo(MachineStatus.LOST);
    }

    @Test
    void aPausedAgentShorterThanTheLostTtlIsNeverLost() {
        machines.register("paused", "eu", Map.of(), null, 8_000, 8_192, 0);
        JobRecord job = placed("paused", true, null);
        MachineLivenessSweep sweep = liveness();
        for (int second = 1; second <= 14; second++) { // a SIGSTOP of 14 s, swept every second
            clock.advance(Duration.ofSeconds(1));
            sweep.run(clock.instant());
            assertThat(status("paused")).isNotEqualTo(MachineStatus.LOST);
        }
        machines.heartbeats(Map.of("paused", clock.instant()));
        sweep.run(clock.instant());
        assertThat(status("paused")).isEqualTo(MachineStatus.READY);
        assertThat(jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
    }

    @Test
    void aRegionFallingSilentTogetherIsHeldNotLost() {
        for (int i = 0; i < 4; i++) {
            machines.register("eu-" + i, "eu", Map.of(), null, 8_000, 8_192, 0);
        }
        JobRecord job = placed("eu-0", true, null);
        clock.advance(Duration.ofSeconds(30));
        machines.heartbeats(Map.of("eu-3", clock.instant()));
        liveness().run(clock.instant());
        assertThat(status("eu-0")).isEqualTo(MachineStatus.SUSPECT);
        assertThat(machines.get("eu-0").orElseThrow().statusReason()).startsWith("region eu: 3 of 4 machines silent at once");
        assertThat(jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(meters.get("reconciler.mass.silence.machines").gauge().value()).isEqualTo(3.0);
    }

    @Test
    void aLeaseNotStartedInTimeIsRetried() {
        machines.register("slow", "eu", Map.of(), null, 8_000, 8_192, 0);
        JobRecord job = placed("slow", false, null);
        ExpiredLeaseSweep sweep = new ExpiredLeaseSweep(repair, reports, meters);
        assertThat(sweep.run(clock.instant())).isZero();
        clock.advance(Duration.ofSeconds(31));
        assertThat(sweep.run(clock.instant())).isEqualTo(1);
        JobRecord after = jobs.get(job.id()).orElseThrow();
        assertThat(after.state()).isEqualTo(JobState.QUEUED);
        assertThat(after.failureReason()).isEqualTo(FailureReason.LEASE_EXPIRED);
        assertThat(after.userFailures()).isZero();
    }

    /** A lease the control plane could not hand out (its heartbeat watermark held back) is not judged expired yet. */
    @Test
    void aLeaseIsJudgedExpiredOnlyAsFarAsTheControlPlaneHeardItsFleet() {
        machines.register("unheard", "eu", Map.of(), null, 8_000, 8_192, 0);
        JobRecord job = placed("unheard", false, null);
        Instant troubleBegan = clock.instant().plusSeconds(5);
        ExpiredLeaseSweep sweep = new ExpiredLeaseSweep(repair, reports, meters,
                now -> now.isAfter(troubleBegan) ? troubleBegan : now);
        clock.advance(Duration.ofSeconds(40));
        assertThat(sweep.run(clock.instant())).isZero();
        assertThat(jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    }

    @Test
    void driftedCountersAndOrphanedAllocationsAreRepaired() {
        machines.register("m", "eu", Map.of(), null, 8_000, 8_192, 0);
        placed("m", true, null);
        AllocationSweep sweep = new AllocationSweep(jobs, repair, meters);
        assertThat(sweep.run(clock.instant())).isZero();
        jdbc.sql("update machines set alloc_cpu_millis = 7000 where id = 'm'").update();
        assertThat(sweep.run(clock.instant())).isEqualTo(1);
        assertThat(machines.get("m").orElseThrow().machine().allocated().cpuMillis()).isEqualTo(1000);
    }

    /** The check sums over every live attempt of the fleet: it runs at most every {@code allocation-check}. */
    @Test
    void driftedCountersAreFoundAtTheNextCheckNotAtEveryRun() {
        machines.register("m", "eu", Map.of(), null, 8_000, 8_192, 0);
        placed("m", true, null);
        AllocationSweep sweep = new AllocationSweep(jobs, repair, meters, Duration.ofSeconds(15));
        assertThat(sweep.run(clock.instant())).isZero();
        jdbc.sql("update machines set alloc_cpu_millis = 7000 where id = 'm'").update();
        clock.advance(Duration.ofSeconds(14));
        assertThat(sweep.run(clock.instant())).as("checked 14 s ago").isZero();
        assertThat(machines.get("m").orElseThrow().machine().allocated().cpuMillis()).isEqualTo(7000);
        clock.advance(Duration.ofSeconds(1));
        assertThat(sweep.run(clock.instant())).isEqualTo(1);
        assertThat(machines.get("m").orElseThrow().machine().allocated().cpuMillis()).isEqualTo(1000);
    }

    /** A machine withheld from draining (the region's hourly budget spent) is logged and counted once, not every run. */
    @Test
    void aMachineWithheldFromDrainingIsCountedOnceWhileItStaysWithheld() {
        for (String id : List.of("broken-1", "broken-2")) {
            machines.register(id, "eu", Map.of(), null, 8_000, 8_192, 0);
            for (int i = 0; i < 3; i++) {
                JobRecord job = placed(id, false, null);
                clock.advance(Duration.ofSeconds(1));
                reports.apply(new AttemptReport(job.id(), 1, epoch(job), id, AttemptState.FAILED, 127,
                        FailureReason.START_FAILED, null, clock.instant(), "", "no such file"));
            }
        }
        AutoDrainSweep sweep = new AutoDrainSweep(repair, machines, 3, Duration.ofMinutes(10), meters);
        for (int run = 0; run < 5; run++) {
            assertThat(sweep.run(clock.instant())).isEqualTo(run == 0 ? 1 : 0);
            clock.advance(Duration.ofSeconds(1));
        }
        assertThat(meters.counter("reconciler.actions", "kind", "machine-drained").count()).isEqualTo(1);
        assertThat(meters.counter("reconciler.actions", "kind", "machine-drain-withheld").count())
                .as("two machines in region eu: one may be drained an hour, the other is withheld, once").isEqualTo(1);
    }

    @Test
    void aMachineWhereAttemptsKeepFailingToStartIsDrainedWithAReason() {
        machines.register("broken", "eu", Map.of(), null, 8_000, 8_192, 0);
        for (int i = 0; i < 3; i++) {
            JobRecord job = placed("broken", false, null);
            clock.advance(Duration.ofSeconds(1));
            reports.apply(new AttemptReport(job.id(), 1, epoch(job), "broken", AttemptState.FAILED, 127, FailureReason.START_FAILED,
                    null, clock.instant(), "", "no such file"));
        }
        AutoDrainSweep sweep = new AutoDrainSweep(repair, machines, 3, Duration.ofMinutes(10), meters);
        assertThat(sweep.run(clock.instant())).isEqualTo(1);
        assertThat(status("broken")).isEqualTo(MachineStatus.DRAINING);
        assertThat(machines.get("broken").orElseThrow().statusReason())
                .isEqualTo("drained automatically: the last 3 attempts here failed to start or were lost (last: START_FAILED)");
    }

    /**
     * A machine declared lost because it was not heard, then heard again on the same incarnation, never died: the
     * link was lost (a control plane too busy to hear it, most often), and a loaded control plane must not drain its
     * own fleet. A machine that joined anew after its losses did die, and is drained.
     */
    @Test
    void lossesAMachineOutlivedNeverDrainItButLossesItDiedOfDo() {
        machines.register("outlived", "eu", Map.of(), null, 8_000, 8_192, 0);
        machines.register("died", "us", Map.of(), null, 8_000, 8_192, 0);
        MachineLivenessSweep sweep = liveness();
        for (int i = 0; i < 3; i++) {
            placed("outlived", true, null);
            placed("died", true, null);
            clock.advance(Duration.ofSeconds(16));
            sweep.run(clock.instant());
            assertThat(status("outlived")).isEqualTo(MachineStatus.LOST);
            clock.advance(Duration.ofSeconds(1));
            machines.heartbeats(Map.of("outlived", clock.instant(), "died", clock.instant()));
            sweep.run(clock.instant());
            assertThat(status("outlived")).isEqualTo(MachineStatus.READY);
        }
        clock.advance(Duration.ofSeconds(1));
        machines.join("died", "us", Map.of(), null, 8_000, 8_192, 0, new byte[] {1});

        AutoDrainSweep drain = new AutoDrainSweep(repair, machines, 3, Duration.ofMinutes(10), meters);
        assertThat(drain.run(clock.instant())).isEqualTo(1);
        assertThat(status("died")).isEqualTo(MachineStatus.DRAINING);
        assertThat(status("outlived")).as("its three losses were the link's, not the machine's").isEqualTo(MachineStatus.READY);
    }
}
