package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.HeartbeatCadence;
import io.fleetjobs.model.PlacementStrategy;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.core.Plan;
import io.fleetjobs.store.GangHoldRows;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.testsupport.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two workers of one replica planning on one cache over the real database, their steps interleaved by the test: the
 * room a plan took stays taken however its commit ends relative to the other worker's read of the machines.
 */
class FleetCacheTest {
    private final SettableClock clock = SettableClock.atNow();
    private final PlacementEngine engine = new PlacementEngine();
    private Fleet fleet;
    private UUID tenant;
    private PlacementStore store;
    /** Runs once, inside the next read of the machines, after the database has answered it. */
    private final AtomicReference<Runnable> duringNextRead = new AtomicReference<>(() -> { });
    private final AtomicInteger tenantReads = new AtomicInteger();
    private FleetCache cache;

    @BeforeEach
    void setUp() {
        fleet = new Fleet(clock);
        tenant = fleet.tenant("t");
        fleet.machines.register("m", "eu", Map.of(), null, 4_000, 8_192, 0);
        store = new PlacementStore(fleet.jdbc, fleet.jobs);
        cache = new FleetCache(() -> {
            var rows = store.schedulableMachines();
            duringNextRead.getAndSet(() -> { }).run();
            return rows;
        }, () -> {
            tenantReads.incrementAndGet();
            return store.tenantUsage();
        }, store.gangHolds()::current, SchedulerProperties.defaults(), new SimpleMeterRegistry().timer("snapshot"));
    }

    @AfterEach
    void tearDown() {
        fleet.close();
    }

    @Test
    void aCommitThatEndsWhileTheOtherWorkerReadsTheMachinesKeepsItsRoomTaken() {
        Object first = new Object();
        assertThat(plan(first).assignments()).as("3 of the machine's 4 CPUs").hasSize(1);

        // the second worker reads the machines afresh; the first worker's commit ends after that read's snapshot
        // was taken (the read does not show it) and releases its reservation before the read returns
        duringNextRead.set(() -> cache.release(first));
        cache.invalidate();
        Plan second = plan(new Object());

        assertThat(second.assignments()).as("the room the first plan took is not handed out again").isEmpty();
    }

    @Test
    void aPlanWhoseCommitFailedLeavesItsRoomFreeAtTheNextRead() {
        Object first = new Object();
        plan(first);
        cache.release(first); // its commit failed: the room is free again once the machines are read
        cache.invalidate();

        assertThat(plan(new Object()).assignments()).hasSize(1);
    }

    @Test
    void withoutQuotasTheTenantsUsageIsReadEveryFairShareMaxAgeNotWhenRoomAppears() {
        plan(new Object());
        assertThat(tenantReads).hasValue(1);
        cache.invalidate(); // room appeared
        clock.advance(Duration.ofSeconds(2));
        plan(new Object());
        assertThat(tenantReads).as("it only orders tenants by dominant share").hasValue(1);
        clock.advance(Duration.ofSeconds(3).plusMillis(1));
        plan(new Object());
        assertThat(tenantReads).as("5 s after its read").hasValue(2);
    }

    @Test
    void withAQuotaTheTenantsUsageIsReadAgainWhenRoomAppears() {
        fleet.tenants.create("capped", 1, 8_000L, null, null);
        plan(new Object());
        assertThat(tenantReads).hasValue(1);
        cache.invalidate(); // room appeared: a job held at its quota may start now
        plan(new Object());
        assertThat(tenantReads).hasValue(2);
        clock.advance(Duration.ofSeconds(1).plusMillis(1));
        plan(new Object());
        assertThat(tenantReads).as("snapshotMaxAge after its read").hasValue(3);
    }

    /**
     * A due gang's hold reaches the other workers: their batches are the jobs claimed after the gang's, and took the
     * machines it was collecting (the hold lasted one plan). The hold lapses when no plan of the gang renews it.
     */
    @Test
    void theRoomADueGangHoldsIsTakenInTheOtherWorkersPlansUntilItLapses() {
        fleet.machines.register("n", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.machines.register("o", "eu", Map.of(), null, 4_000, 8_192, 0);
        fleet.jdbc.sql("update machines set alloc_cpu_millis = 2000 where id = 'o'").update(); // busy for now
        Instant now = clock.instant();
        PendingJob gang = new PendingJob(UUID.randomUUID(), tenant, 500, 3_000, 1_024, 0, List.of(), "eu", Map.of(),
                PlacementStrategy.BINPACK, now.toEpochMilli(), false, 3, null).due();
        Plan gangs = cache.plan(new Object(), now, List.of(gang), snapshot -> engine.plan(snapshot, List.of(gang)));
        assertThat(gangs.assignments()).as("3 replicas, 2 machines with room").isEmpty();
        assertThat(gangs.held()).extracting(a -> a.machineId()).containsExactlyInAnyOrder("m", "n");

        assertThat(plan(new Object()).assignments()).as("another worker's job, claimed after the gang").isEmpty();

        Plan again = cache.plan(new Object(), now, List.of(gang), snapshot -> engine.plan(snapshot, List.of(gang)));
        assertThat(again.held()).as("the gang plans on its own room").hasSize(2);

        clock.advance(SchedulerProperties.defaults().retryNoRoom().multipliedBy(2));
        fleet.machines.heartbeats(Map.of("m", clock.instant(), "n", clock.instant(), "o", clock.instant()));
        cache.invalidate();
        assertThat(plan(new Object()).assignments()).as("no plan of the gang renewed its hold").hasSize(1);
    }

    /**
     * Another scheduler replica's gang: its hold, written with its plan's commit, is read with the machines here, and
     * a job claimed here cannot take that room until the hold lapses; a plan whose batch holds the gang can.
     */
    @Test
    void theRoomAGangHoldsInAnotherReplicaIsTakenHereUntilItLapses() {
        Instant now = clock.instant();
        UUID gang = UUID.randomUUID();
        store.gangHolds().replace(List.of(gang), List.of(new GangHoldRows.Held(gang, "m",
                new Amounts(3_000, 1_024, 0), now.plusSeconds(10))), now);

        assertThat(plan(new Object()).assignments()).as("the machine's room is the other replica's gang's").isEmpty();

        PendingJob theGang = new PendingJob(gang, tenant, 500, 3_000, 1_024, 0, List.of(), "eu", Map.of(),
                PlacementStrategy.BINPACK, now.toEpochMilli());
        Object gangsPlan = new Object();
        assertThat(cache.plan(gangsPlan, now, List.of(theGang), snapshot -> engine.plan(snapshot, List.of(theGang)))
                .assignments()).as("the gang plans on the room it holds").hasSize(1);
        cache.release(gangsPlan); // its commit failed, say: the room and the hold are as they were
        cache.invalidate();
        assertThat(plan(new Object()).assignments()).as("the hold, read again with the machines").isEmpty();

        clock.advance(Duration.ofSeconds(10));
        fleet.machines.heartbeats(Map.of("m", clock.instant())); // its agent lives on
        cache.invalidate();
        assertThat(plan(new Object()).assignments()).as("no plan of the gang renewed its hold").hasSize(1);
    }

    /**
     * A fleet of 10,000 machines beats every 20 s (at 500 heartbeats a second): a healthy idle machine is often 15 s
     * past its last heartbeat, and a fixed 10 s window passed it over in every plan until its next one.
     */
    @Test
    void aMachineOfAFleetThatBeatsSlowlyTakesWorkBetweenItsHeartbeats() {
        clock.advance(Duration.ofSeconds(15));
        cache.invalidate();
        assertThat(plan(new Object()).assignments()).as("at the base cadence, 15 s of silence is too long").isEmpty();

        var settings = new HeartbeatCadence.Settings(Duration.ofSeconds(2), Duration.ofSeconds(6), 500);
        cache.followCadence(() -> HeartbeatCadence.forFleet(10_000, settings), settings.minInterval());
        cache.invalidate();
        assertThat(plan(new Object()).assignments()).as("every 20 s: heard 15 s ago is fresh").hasSize(1);
    }

    private Plan plan(Object token) {
        Instant now = clock.instant();
        PendingJob job = new PendingJob(UUID.randomUUID(), tenant, 500, 3_000, 1_024, 0, List.of(), "eu", Map.of(),
                PlacementStrategy.BINPACK, now.toEpochMilli());
        return cache.plan(token, now, List.of(job), snapshot -> engine.plan(snapshot, List.of(job)));
    }
}
