package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AgentProtocol.LogFollow;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.service.agent.AgentProperties;
import io.fleetjobs.scheduler.service.agent.AgentService;
import io.fleetjobs.scheduler.service.agent.HeartbeatWriter;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import io.fleetjobs.scheduler.service.agent.LogFollowWatcher;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.LogStreams;
import io.fleetjobs.store.PlacementStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Live logs ride the heartbeat: a follow registered while the machine's heartbeat is held answers it at once, naming
 * the stream; a heartbeat that already ships every followed stream stays held.
 */
class LogFollowHeartbeatTest {
    private static Fleet fleet;

    @BeforeAll
    static void start() {
        fleet = new Fleet(InstantSource.system());
    }

    @AfterAll
    static void stop() {
        fleet.close();
    }

    @Test
    void aNewFollowAnswersTheHeldHeartbeatAndAFollowAlreadyShippedDoesNot() throws Exception {
        UUID tenant = fleet.tenant("follows");
        String machine = "follows-1";
        long incarnation = fleet.machines.join(machine, "eu", Map.of(), null, 8_000, 16_384, 0, new byte[] {9});
        fleet.machines.heartbeats(Map.of(machine, InstantSource.system().instant()));
        LeaseBroker broker = new LeaseBroker();
        LogStreams logs = new LogStreams(fleet.jdbc, fleet.clock);
        AgentService agents = new AgentService(fleet.jobs, fleet.machines,
                new AttemptReports(fleet.jdbc, fleet.jobs, new SecureRandom()), broker,
                new HeartbeatWriter(fleet.machines, Duration.ofSeconds(1), Duration.ofSeconds(1), InstantSource.system()),
                new AgentProperties("token", Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(30), null, null));
        LogFollowWatcher watcher = new LogFollowWatcher(logs, broker, fleet.clock, Duration.ofMillis(200));
        agents.logFollows(watcher.gate(logs::followsOn));
        SchedulerCycle cycle = new SchedulerCycle(fleet.jobs, new PlacementStore(fleet.jdbc, fleet.jobs),
                new PlacementEngine(), SchedulerProperties.defaults(), new SimpleMeterRegistry(), broker::signalAll);
        fleet.queue(tenant, List.of(Fleet.spec("printing", 1, 512, 0, null, "eu")));
        assertThat(cycle.runOnce().placed()).isEqualTo(1);
        var lease = agents.heartbeat(machine, new Heartbeat(machine, incarnation, List.of(), 0, List.of())).start().getFirst();
        var running = new AttemptReport(lease.jobId(), lease.attempt(), lease.epoch(), machine,
                AttemptState.RUNNING, null, null, InstantSource.system().instant(), null, null, null);

        AtomicReference<Thread> holder = new AtomicReference<>();
        CompletableFuture<HeartbeatResponse> reply = CompletableFuture.supplyAsync(() -> {
            holder.set(Thread.currentThread());
            return agents.heartbeat(machine, new Heartbeat(machine, incarnation, List.of(running), 30_000, List.of()));
        });
        await().until(() -> held(broker, holder, machine));
        watcher.look(); // no follow yet: nothing to wake
        assertThat(reply).isNotDone();
        assertThat(watcher.followed(machine)).as("heartbeats of a machine no one follows ask the database nothing").isFalse();

        logs.follow(UUID.randomUUID(), new LogStreams.Stream(lease.jobId(), lease.attempt(), 0, "stdout"),
                machine, -65536);
        watcher.look();
        LogFollow followed = new LogFollow(lease.jobId(), lease.attempt(), "stdout", -65536);
        assertThat(reply.get().follow()).containsExactly(followed);

        AtomicReference<Thread> second = new AtomicReference<>();
        CompletableFuture<HeartbeatResponse> shipping = CompletableFuture.supplyAsync(() -> {
            second.set(Thread.currentThread());
            return agents.heartbeat(machine, new Heartbeat(machine, incarnation, List.of(running), 30_000,
                    List.of(followed.key())));
        });
        await().until(() -> held(broker, second, machine));
        broker.signal(machine); // a wake-up that finds the same follows: held on
        await().until(() -> shipping.isDone() || held(broker, second, machine));
        assertThat(shipping).as("the agent ships every followed stream already").isNotDone();
        fleet.queue(tenant, List.of(Fleet.spec("ends-the-hold", 1, 512, 0, null, "eu")));
        assertThat(cycle.runOnce().placed()).isEqualTo(1);
        assertThat(shipping.get().follow()).containsExactly(followed);
    }

    private static boolean held(LeaseBroker broker, AtomicReference<Thread> holder, String machineId) {
        Thread t = holder.get();
        return t != null && broker.registered(machineId) && t.getState() == Thread.State.TIMED_WAITING;
    }
}
