package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.scheduler.core.ClaimPolicy;
import io.fleetjobs.store.ClaimedJob;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.testsupport.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One replica's cycles against the real database, with a clock the test moves. */
class SchedulerCycleTest {
    private final SettableClock clock = SettableClock.atNow();
    private Fleet fleet;
    private Fleet.Replica scheduler;
    private UUID tenant;

    @BeforeEach
    void setUp() {
        fleet = new Fleet(clock);
        scheduler = fleet.replica(SchedulerProperties.defaults());
        tenant = fleet.tenant("t");
    }

    @AfterEach
    void tearDown() {
        scheduler.close();
        fleet.close();
    }

    @Test
    void placesWhatFitsAndRecordsEverythingInOneGo() {
        fleet.machines.register("cpu-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.machines.register("gpu-1", "eu", Map.of(), "H100", 16_000, 65_536, 4);
        fleet.queue(tenant, List.of(
                Fleet.spec("a", 2, 1024, 0, null, "eu"),
                Fleet.spec("b", 2, 1024, 0, null, "eu"),
                Fleet.spec("train", 4, 8192, 2, "H100", "eu")));

        var result = scheduler.cycle().runOnce();

        assertThat(result).isEqualTo(new SchedulerCycle.Result(3, 3, 0, 0, true));
        assertThat(fleet.count("select count(*) from jobs where state = 'SCHEDULED' and attempt = 1 and version = 2"))
                .isEqualTo(3);
        assertThat(fleet.count("select count(*) from attempts where state = 'SCHEDULED' and lease_expires_at is not null"))
                .isEqualTo(3);
        assertThat(fleet.count("select count(*) from attempts where released_at is null")).isEqualTo(3);
        assertThat(fleet.count("select count(*) from job_history where to_state = 'SCHEDULED' and event_id is not null"))
                .as("each placement's history row is its event").isEqualTo(3);
        assertThat(fleet.count("select count(*) from job_history where to_state = 'SCHEDULED' and from_state = 'QUEUED'"))
                .isEqualTo(3);
        var gpu = fleet.machines.get("gpu-1").orElseThrow();
        assertThat(gpu.machine().allocated().gpus()).isEqualTo(2);
        // bin-packing keeps the CPU jobs off the GPU machine while the CPU machine has room
        assertThat(fleet.count("select count(*) from jobs where machine_id = 'cpu-1'")).isEqualTo(2);
        assertThat(fleet.machines.get("cpu-1").orElseThrow().machine().allocated().cpuMillis()).isEqualTo(4_000);
    }

    /**
     * A due gang that does not fit whole writes the room it holds with its plan's commit, for the plans of the other
     * scheduler replicas (their claims hold the jobs after it); once placed, it holds nothing.
     */
    @Test
    void aDueGangsHoldIsWrittenForTheOtherReplicasAndGoesWhenItIsPlaced() {
        long period = Duration.ofMinutes(11).toMillis(); // into a hold of GangHolds: gangs rest a minute in eleven
        clock.advance(Duration.ofMillis(period - Math.floorMod(clock.instant().toEpochMilli(), period)));
        fleet.machines.register("g-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.machines.register("g-2", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.machines.register("g-3", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.count("update machines set alloc_cpu_millis = 2000 where id = 'g-3' returning 1"); // busy for now
        fleet.queue(tenant, List.of(Fleet.spec("gang", 3, 1024, 0, null, "eu")));
        fleet.count("update jobs set replicas = 3, created_at = created_at - interval '5 minutes' where name = 'gang'"
                + " returning 1");

        scheduler.cycle().runOnce();
        assertThat(fleet.count("select count(*) from gang_holds where machine_id in ('g-1', 'g-2')"
                + " and held_until > now() - interval '1 day'")).as("3 replicas, 2 machines: it holds both").isEqualTo(2);

        fleet.count("update machines set alloc_cpu_millis = 0 where id = 'g-3' returning 1"); // its work ended
        scheduler.cycle().lookAgain();
        scheduler.cycle().runOnce();
        assertThat(fleet.count("select count(*) from jobs where name = 'gang' and state = 'SCHEDULED'")).isEqualTo(1);
        assertThat(fleet.count("select count(*) from gang_holds")).as("placed, it holds nothing").isZero();
    }

    /**
     * Backfill: behind a due gang that holds two machines and waits for a third, busy for an hour by its job's limit, a
     * job whose limit (and the margin) ends before then runs on the gang's room; one that would end later, and one
     * without a limit, wait.
     */
    @Test
    void aJobThatEndsBeforeAWaitingGangCanStartRunsOnItsRoom() {
        long period = Duration.ofMinutes(11).toMillis(); // into a hold of GangHolds: gangs rest a minute in eleven
        clock.advance(Duration.ofMillis(period - Math.floorMod(clock.instant().toEpochMilli(), period)));
        fleet.machines.register("g-3", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.queue(tenant, List.of(timed("hour", Fleet.spec("hour", 4, 1024, 0, null, "eu"), 3600)));
        scheduler.cycle().runOnce(); // g-3 busy for an hour by its job's limit
        assertThat(fleet.count("select count(*) from attempts where machine_id = 'g-3'")).isEqualTo(1);
        fleet.machines.register("g-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.machines.register("g-2", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.queue(tenant, List.of(Fleet.spec("gang", 4, 1024, 0, null, "eu")));
        fleet.count("update jobs set replicas = 3, created_at = created_at - interval '5 minutes' where name = 'gang'"
                + " returning 1");
        fleet.queue(tenant, List.of(
                timed("ten-minutes", Fleet.spec("ten-minutes", 4, 1024, 0, null, "eu"), 600),
                timed("two-hours", Fleet.spec("two-hours", 4, 1024, 0, null, "eu"), 7200),
                Fleet.spec("no-limit", 4, 1024, 0, null, "eu")));

        scheduler.cycle().lookAgain();
        scheduler.cycle().runOnce();

        assertThat(fleet.count("select count(*) from jobs where name = 'ten-minutes' and state = 'SCHEDULED'"
                + " and machine_id in ('g-1', 'g-2')")).as("backfilled onto the gang's room").isEqualTo(1);
        assertThat(fleet.count("select count(*) from jobs where name in ('two-hours', 'no-limit', 'gang')"
                + " and state = 'QUEUED'")).isEqualTo(3);
        assertThat(fleet.count("select count(*) from gang_holds")).as("it holds the machine not lent").isEqualTo(1);
        clock.advance(Duration.ofSeconds(6)); // past the wait before a first "no room" reason is written
        scheduler.cycle().runOnce();
        assertThat(fleet.count("select count(*) from jobs where name = 'gang' and state_reason like '%can start by %'"
                + " and state_reason like '%(backfill)%'")).isEqualTo(1);
    }

    private static JobSpec timed(String name, JobSpec spec, int seconds) {
        return new JobSpec(name, spec.queue(), spec.priority(), spec.resources(), spec.placement(),
                new Execution(List.of("true"), Map.of(), seconds), null, null);
    }

    @Test
    void aJobThatFitsNowhereStaysQueuedWithAReasonAndWaitsItsBackoff() {
        for (int i = 0; i < 3; i++) {
            fleet.machines.register("a100-" + i, "us", Map.of(), "A100", 64_000, 262_144, 8);
        }
        fleet.machines.register("h100-small", "us", Map.of(), "H100", 64_000, 262_144, 2);
        fleet.queue(tenant, List.of(Fleet.spec("big", 8, 4096, 4, "H100", "us")));

        var first = scheduler.cycle().runOnce();
        assertThat(first.deferred()).isEqualTo(1);
        JobRecord job = onlyJob();
        assertThat(job.state()).isEqualTo(JobState.QUEUED);
        assertThat(job.stateReason()).isEqualTo(
                "0 of 4 machines fit: 3 lack GPU type H100, 1 has fewer than 4 GPUs in total");
        assertThat(job.version()).as("a reason is not a state change").isEqualTo(1);

        // not looked at again before its backoff passes, even when asked
        assertThat(scheduler.cycle().runOnce().claimed()).isZero();
        clock.advance(SchedulerProperties.defaults().retryNeverFits().plusSeconds(1));
        fleet.machines.register("h100-big", "us", Map.of(), "H100", 64_000, 262_144, 8);
        assertThat(scheduler.cycle().runOnce().placed()).isEqualTo(1);
        assertThat(onlyJob().machineId()).isEqualTo("h100-big");
    }

    @Test
    void aJobFoundToFitNowhereAgainWaitsTheLongerBackoffAndAMachineJoiningStillWakesIt() {
        fleet.machines.register("a100", "us", Map.of(), "A100", 64_000, 262_144, 8);
        fleet.queue(tenant, List.of(Fleet.spec("needs-h100", 8, 4096, 1, "H100", "us")));
        SchedulerProperties p = SchedulerProperties.defaults();

        assertThat(scheduler.cycle().runOnce().deferred()).isEqualTo(1);
        assertThat(onlyJob().notBefore()).as("the first time")
                .isBefore(clock.instant().plus(p.retryNeverFits()).plusMillis(1)); // the row keeps microseconds
        clock.advance(p.retryNeverFits().plusSeconds(1));
        assertThat(scheduler.cycle().runOnce().deferred()).isEqualTo(1);
        assertThat(onlyJob().notBefore()).as("found so again").isAfter(clock.instant().plus(p.retryNeverFits()))
                .isBefore(clock.instant().plus(p.retryStillNeverFits()).plusMillis(1));
        clock.advance(p.retryNeverFits().plusSeconds(1));
        assertThat(scheduler.cycle().runOnce().claimed()).as("not looked at after the first backoff").isZero();

        fleet.machines.register("h100", "us", Map.of(), "H100", 64_000, 262_144, 8);
        assertThat(new PlacementStore(fleet.jdbc, fleet.jobs).wakeUnplaceable(100)).isEqualTo(1);
        scheduler.cycle().lookAgain();
        assertThat(scheduler.cycle().runOnce().placed()).isEqualTo(1);
    }

    @Test
    void aJobThatHasFittedNowhereForHoursIsLookedAtEveryQuarterHourNotEveryTwoMinutes() {
        fleet.machines.register("a100", "us", Map.of(), "A100", 64_000, 262_144, 8);
        fleet.queue(tenant, List.of(Fleet.spec("needs-h100", 8, 4096, 1, "H100", "us")));
        fleet.jdbc.sql("update jobs set created_at = created_at - interval '3 hours'").update();
        SchedulerProperties p = SchedulerProperties.defaults();

        assertThat(scheduler.cycle().runOnce().deferred()).isEqualTo(1);
        assertThat(onlyJob().notBefore()).as("the first time").isBefore(clock.instant().plus(p.retryNeverFits()).plusMillis(1));
        clock.advance(p.retryNeverFits().plusSeconds(1));
        assertThat(scheduler.cycle().runOnce().deferred()).isEqualTo(1);
        assertThat(onlyJob().notBefore()).as("found so again, three hours old")
                .isAfter(clock.instant().plus(p.retryNeverFitsMax()).minusSeconds(1))
                .isBefore(clock.instant().plus(p.retryNeverFitsMax()).plusMillis(1));
        clock.advance(p.retryStillNeverFits().plusSeconds(1));
        assertThat(scheduler.cycle().runOnce().claimed()).isZero();

        fleet.machines.register("h100", "us", Map.of(), "H100", 64_000, 262_144, 8);
        assertThat(new PlacementStore(fleet.jdbc, fleet.jobs).wakeUnplaceable(100)).isEqualTo(1);
        scheduler.cycle().lookAgain();
        assertThat(scheduler.cycle().runOnce().placed()).as("a join still wakes it").isEqualTo(1);
    }

    @Test
    void aJobFoundWhenNoMachineIsRegisteredWaitsTheLongerBackoffAtOnceAndTheFirstJoinWakesIt() {
        fleet.queue(tenant, List.of(Fleet.spec("early", 1, 512, 0, null, "us")));
        SchedulerProperties p = SchedulerProperties.defaults();

        assertThat(scheduler.cycle().runOnce().deferred()).isEqualTo(1);
        assertThat(onlyJob().stateReason()).isEqualTo("no machines are registered");
        assertThat(onlyJob().notBefore()).as("only a join can change that: no second look after the first backoff")
                .isAfter(clock.instant().plus(p.retryNeverFits()))
                .isBefore(clock.instant().plus(p.retryStillNeverFits()).plusMillis(1));
        clock.advance(p.retryNeverFits().plusSeconds(1));
        assertThat(scheduler.cycle().runOnce().claimed()).isZero();

        fleet.machines.register("first", "us", Map.of(), null, 4_000, 8_192, 0);
        assertThat(new PlacementStore(fleet.jdbc, fleet.jobs).wakeUnplaceable(100)).isEqualTo(1);
        scheduler.cycle().lookAgain();
        assertThat(scheduler.cycle().runOnce().placed()).isEqualTo(1);
    }

    @Test
    void aJobLargerThanItsTenantsQuotaIsLookedAtAgainAsSoonAsTheQuotaIsRaised() {
        UUID capped = fleet.tenants.create("capped", 1, 2_000L, null, null).orElseThrow().id();
        fleet.machines.register("m", "eu", Map.of(), null, 8_000, 8_192, 0);
        fleet.queue(capped, List.of(Fleet.spec("four-cores", 4, 512, 0, null, "eu")));
        SchedulerProperties p = SchedulerProperties.defaults();

        assertThat(scheduler.cycle().runOnce().deferred()).isEqualTo(1);
        assertThat(onlyJob().stateReason()).isEqualTo("the job needs 4 cores, more than the tenant's whole quota of 2 cores");
        assertThat(onlyJob().notBefore()).isAfter(clock.instant().plus(p.retryNeverFits()).minusSeconds(1));

        fleet.tenants.update("capped", null, new TenantStore.Quota(8_000L, null, null, null));
        assertThat(onlyJob().notBefore()).as("woken by the change").isBefore(clock.instant().plusMillis(1)); // microseconds
        assertThat(scheduler.cycle().runOnce().deferred())
                .as("a cycle planning on the quota it read before the change: found so again, but as for the first time")
                .isEqualTo(1);
        assertThat(onlyJob().notBefore()).isBefore(clock.instant().plus(p.retryNeverFits()).plusMillis(1));

        fleet.tenants.update("capped", null, new TenantStore.Quota(8_000L, null, null, null));
        clock.advance(p.snapshotMaxAge().plusMillis(1)); // the quota the scheduler plans on is read again by then
        assertThat(scheduler.cycle().runOnce().placed()).as("long before its backoff ends").isEqualTo(1);
    }

    @Test
    void aJobWithoutRoomIsPassedOverUntilRoomAppearsWithoutABackoffInItsRow() {
        fleet.machines.register("m", "eu", Map.of(), null, 2_000, 4_096, 0);
        fleet.queue(tenant, List.of(Fleet.spec("one", 2, 1024, 0, null, "eu"), Fleet.spec("two", 2, 1024, 0, null, "eu")));
        List<String> before = fleet.jdbc.sql("select xmin::text || ctid::text from jobs order by id").query(String.class).list();
        assertThat(scheduler.cycle().runOnce()).isEqualTo(new SchedulerCycle.Result(2, 1, 1, 0, false));
        assertThat(rowVersionsOfQueued()).as("its first reason waits until it has waited a while: the row is untouched")
                .isSubsetOf(before).hasSize(1);
        assertThat(scheduler.cycle().runOnce().claimed()).as("passed over: not claimed again before room appears").isZero();

        clock.advance(SchedulerProperties.defaults().noRoomReasonAfter()); // retryNoRoom too: the claims restart
        assertThat(scheduler.cycle().runOnce()).isEqualTo(new SchedulerCycle.Result(1, 0, 1, 0, false));
        String waiting = fleet.jdbc.sql("select state_reason from jobs where state = 'QUEUED'").query(String.class).single();
        assertThat(waiting).isEqualTo("0 of 1 machine fits: 1 has less than 2 free cores");
        assertThat(fleet.count("select count(*) from jobs where state = 'QUEUED' and not_before > now() + interval '1 second'"))
                .as("no backoff written: the cycle passes over it in memory").isZero();
        assertThat(scheduler.cycle().runOnce().claimed()).as("passed over: not claimed again before room appears").isZero();

        fleet.machines.register("m2", "eu", Map.of(), null, 2_000, 4_096, 0);
        scheduler.cycle().lookAgain(); // as the loop does when room appears
        assertThat(scheduler.cycle().runOnce().placed()).isEqualTo(1);
    }

    @Test
    void jobsThatFitNowhereAreWokenWhenTheFleetChangesButNotRetriesWaitingOutTheirBackoff() {
        fleet.machines.register("a100", "us", Map.of(), "A100", 64_000, 262_144, 8);
        fleet.queue(tenant, List.of(Fleet.spec("needs-h100", 8, 4096, 1, "H100", "us"), Fleet.spec("retrying", 1, 64, 0, null, "us")));
        fleet.jdbc.sql("update jobs set not_before = now() + interval '1 hour',"
                + " state_reason = 'attempt 1 failed with exit code 3; retry in 1h' where name = 'retrying'").update();
        assertThat(scheduler.cycle().runOnce().deferred()).isEqualTo(1);
        assertThat(onlyJob("needs-h100").stateReason()).isEqualTo("0 of 1 machine fits: 1 lacks GPU type H100");

        fleet.machines.register("h100", "us", Map.of(), "H100", 64_000, 262_144, 8); // a machine joined
        var placement = new PlacementStore(fleet.jdbc, fleet.jobs);
        assertThat(placement.wakeUnplaceable(100))
                .as("the job that fitted nowhere, not the retry").isEqualTo(1);
        scheduler.cycle().lookAgain(); // as the loop does when the fleet changed
        assertThat(scheduler.cycle().runOnce().placed()).isEqualTo(1);
        assertThat(onlyJob("needs-h100").machineId()).isEqualTo("h100");
        assertThat(onlyJob("retrying").state()).isEqualTo(JobState.QUEUED);
    }

    @Test
    void jobsFoundWithoutRoomAgainAreNotWrittenAgain() {
        fleet.machines.register("m", "eu", Map.of(), null, 2_000, 4_096, 0);
        fleet.queue(tenant, List.of(Fleet.spec("runs", 2, 1024, 0, null, "eu"), Fleet.spec("w1", 2, 1024, 0, null, "eu"),
                Fleet.spec("w2", 2, 1024, 0, null, "eu")));
        assertThat(scheduler.cycle().runOnce().placed()).isEqualTo(1);
        clock.advance(SchedulerProperties.defaults().noRoomReasonAfter());
        scheduler.cycle().runOnce(); // the first reasons, once they waited
        List<String> rowVersions = rowVersionsOfQueued();
        assertThat(rowVersions).hasSize(2);
        assertThat(fleet.count("select count(*) from jobs where state = 'QUEUED' and state_reason like '0 of 1 machine%'"))
                .isEqualTo(2);

        for (int i = 0; i < 3; i++) {
            scheduler.cycle().lookAgain();
            var again = scheduler.cycle().runOnce();
            assertThat(again.claimed()).isEqualTo(2);
            assertThat(again.deferred()).isEqualTo(2);
        }
        assertThat(rowVersionsOfQueued()).as("same reason, no backoff: the rows are left as they were")
                .isEqualTo(rowVersions);

        fleet.machines.statuses().setStatus("m", MachineStatus.SUSPECT, "missed heartbeats");
        scheduler.cycle().lookAgain();
        scheduler.cycle().runOnce();
        assertThat(fleet.jdbc.sql("select distinct state_reason from jobs where state = 'QUEUED'").query(String.class).list())
                .as("a new reason is written").containsExactly("0 of 1 machine fits: 1 is not READY");
    }

    @Test
    void whileTheFleetIsFullAClaimThatPlacedNothingDoesNotGrowToTheBatch() {
        fleet.machines.register("m", "eu", Map.of(), null, 2_000, 4_096, 0);
        List<JobSpec> specs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            specs.add(Fleet.spec("j-" + i, 1, 64, 0, null, "eu"));
        }
        fleet.queue(tenant, specs);

        var first = scheduler.cycle().runOnce();
        assertThat(first).as("two fit, and then the machine is full").isEqualTo(new SchedulerCycle.Result(100, 2, 98, 0, false));
        for (int look = 0; look < 3; look++) {
            scheduler.cycle().lookAgain(); // as the loop does at each end of an attempt (none ended: still full)
            assertThat(scheduler.cycle().runOnce()).as("look %d: twice what the last claim placed, at least 32, never the"
                    + " whole queue again", look).isEqualTo(new SchedulerCycle.Result(ClaimPolicy.MIN_CLAIM, 0,
                    ClaimPolicy.MIN_CLAIM, 0, false));
        }
    }

    @Test
    void aHeadOfJobsWithoutRoomDoesNotHoldBackTheJobsBehindIt() {
        scheduler.close();
        scheduler = fleet.replica(new SchedulerProperties(4, null, null, null, null, null, null, null));
        fleet.machines.register("gpu", "eu", Map.of(), "H100", 16_000, 65_536, 1);
        fleet.machines.register("cpu", "eu", Map.of(), null, 8_000, 8_192, 0);
        List<JobSpec> specs = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            specs.add(Fleet.spec("gpu-" + i, 1, 1024, 1, "H100", "eu")); // one fits, eight wait for the GPU
        }
        specs.add(Fleet.spec("cpu-a", 1, 1024, 0, null, "eu"));
        specs.add(Fleet.spec("cpu-b", 1, 1024, 0, null, "eu"));
        fleet.queue(tenant, specs);

        int claims = 0;
        while (scheduler.cycle().runOnce().claimed() > 0) { // until the claims reach the end of the queue
            assertThat(++claims).as("each claim resumes after the last: three reach the end").isLessThanOrEqualTo(3);
        }
        assertThat(fleet.count("select count(*) from jobs where name like 'cpu-%' and state = 'SCHEDULED'"))
                .as("the claims went past the GPU jobs without room, a batch of 4 at a time").isEqualTo(2);
        assertThat(fleet.count("select count(*) from jobs where name like 'gpu-%' and state = 'SCHEDULED'")).isEqualTo(1);

        // retryNoRoom later the claims start from the head again, room or not
        clock.advance(SchedulerProperties.defaults().retryNoRoom());
        assertThat(scheduler.cycle().runOnce().claimed()).isEqualTo(4);
    }

    @Test
    void aHeadOfJobsOverTheirTenantsQuotaDoesNotHoldBackOtherTenants() {
        scheduler.close();
        scheduler = fleet.replica(new SchedulerProperties(4, null, null, null, null, null, null, null));
        UUID capped = fleet.tenants.create("capped", 1, 1_000L, null, null).orElseThrow().id();
        fleet.machines.register("big", "eu", Map.of(), null, 64_000, 65_536, 0);
        List<JobSpec> first = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            first.add(Fleet.spec("capped-" + i, 1, 256, 0, null, "eu")); // one runs, eight wait for the quota
        }
        fleet.queue(capped, first);
        fleet.queue(tenant, List.of(Fleet.spec("other-a", 1, 256, 0, null, "eu"), Fleet.spec("other-b", 1, 256, 0, null, "eu")));

        int claims = 0;
        while (scheduler.cycle().runOnce().claimed() > 0) {
            assertThat(++claims).as("each claim resumes after the last: three reach the end").isLessThanOrEqualTo(3);
        }
        assertThat(fleet.count("select count(*) from jobs where name like 'other-%' and state = 'SCHEDULED'")).isEqualTo(2);
        assertThat(fleet.count("select count(*) from jobs where name like 'capped-%' and state = 'SCHEDULED'")).isEqualTo(1);
    }

    @Test
    void theClaimOrderIsPriorityThenIdAsPostgresOrdersThem() {
        UUID low = UUID.fromString("018f0000-0000-7000-8000-000000000000");
        UUID high = UUID.fromString("018f0000-0000-7000-b000-000000000000"); // a negative long in Java
        assertThat(SchedulerCycle.position(claimed(low, 500)).compareTo(SchedulerCycle.position(claimed(high, 500)))).isNegative();
        assertThat(SchedulerCycle.position(claimed(high, 500)).compareTo(SchedulerCycle.position(claimed(low, 500)))).isPositive();
        assertThat(SchedulerCycle.position(claimed(high, 900)).compareTo(SchedulerCycle.position(claimed(low, 500)))).as("higher priority first").isNegative();
        assertThat(fleet.jdbc.sql("select cast(:a as uuid) < cast(:b as uuid)").param("a", low.toString())
                .param("b", high.toString()).query(Boolean.class).single()).isTrue();
    }

    private static ClaimedJob claimed(UUID id, int priority) {
        return new ClaimedJob(id, id, 1, priority, 1_000, 64, 0, null, null, Map.of(), null,
                Instant.EPOCH);
    }

    private List<String> rowVersionsOfQueued() {
        return fleet.jdbc.sql("select xmin::text || ctid::text from jobs where state = 'QUEUED' order by id")
                .query(String.class).list();
    }

    @Test
    void staleOrSuspectMachinesTakeNothing() {
        fleet.machines.register("old", "eu", Map.of(), null, 8_000, 8_192, 0);
        clock.advance(Duration.ofMinutes(1));
        fleet.machines.register("fresh-but-suspect", "eu", Map.of(), null, 8_000, 8_192, 0);
        fleet.machines.statuses().setStatus("fresh-but-suspect", MachineStatus.SUSPECT, "missed heartbeats");
        fleet.queue(tenant, List.of(Fleet.spec("j", 1, 128, 0, null, null)));
        var result = scheduler.cycle().runOnce();
        assertThat(result.placed()).isZero();
        clock.advance(SchedulerProperties.defaults().noRoomReasonAfter());
        scheduler.cycle().runOnce();
        assertThat(onlyJob().stateReason()).isEqualTo("0 of 2 machines fit: 1 is not READY, 1 has no heartbeat in the last 10s");
    }

    private JobRecord onlyJob(String name) {
        UUID id = fleet.jdbc.sql("select id from jobs where name = :n").param("n", name).query(UUID.class).single();
        return fleet.jobs.get(id).orElseThrow();
    }

    private JobRecord onlyJob() {
        UUID id = fleet.jdbc.sql("select id from jobs").query(UUID.class).single();
        return fleet.jobs.get(id).orElseThrow();
    }
}
