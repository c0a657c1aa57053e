package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.scheduler.service.agent.AgentService;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A held heartbeat answers when there is something to say: a wake-up that finds nothing new (a
 * placement signalled a second time by its event from Kafka) holds on, so that the agent is still
 * listening when the next placement on its machine commits, instead of sleeping out its interval.
 */
class HeldHeartbeatTest {
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
    void aWakeUpWithNothingNewKeepsTheHeartbeatHeldUntilAPlacementCommits() throws Exception {
        Machine m = machine("held", "eu", 1);
        LeaseBroker broker = m.broker();
        AgentService agents = m.agents();
        long incarnation = m.incarnation();
        UUID tenant = m.tenant();

        AtomicReference<Thread> holder = new AtomicReference<>();
        CompletableFuture<HeartbeatResponse> reply = CompletableFuture.supplyAsync(() -> {
            holder.set(Thread.currentThread());
            return agents.heartbeat("held-1", new Heartbeat("held-1", incarnation, List.of(), 30_000));
        });
        await().until(() -> held(broker, holder));

        broker.signal("held-1"); // nothing new on the machine
        await().until(() -> reply.isDone() || held(broker, holder));
        assertThat(reply).as("a wake-up with nothing to say is not answered").isNotDone();

        fleet.queue(tenant, List.of(Fleet.spec("wake-me", 1, 512, 0, null, "eu")));
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1);
        HeartbeatResponse response = reply.get();
        assertThat(response.start()).hasSize(1);
        assertThat(response.start().getFirst().attempt()).isEqualTo(1);
    }

    @Test
    void anAttemptTheAgentReportsEndedIsNotLeasedAgainWhileItsRowIsBusy() throws Exception {
        Machine m = machine("ended", "us", 2);
        fleet.queue(m.tenant(), List.of(Fleet.spec("quick", 1, 512, 0, null, "us")));
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1);
        HeartbeatResponse first = m.beat(List.of());
        assertThat(first.start()).hasSize(1);
        var lease = first.start().getFirst();

        // the agent ran it at once and reports its end, while another transaction holds the attempt's row
        var now = InstantSource.system().instant();
        var ended = new AttemptReport(lease.jobId(), lease.attempt(), lease.epoch(), "ended-1",
                AttemptState.SUCCEEDED, 0, null, now, now, "", "");
        try (var c = fleet.dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (var st = c.prepareStatement("select 1 from attempts where job_id = ? for update")) {
                st.setObject(1, lease.jobId());
                st.executeQuery();
            }
            HeartbeatResponse second = m.beat(List.of(ended));
            assertThat(second.ack()).as("busy: acknowledged later").isEmpty();
            assertThat(second.start()).as("not leased again").isEmpty();
            c.rollback();
        }
        HeartbeatResponse third = m.beat(List.of(ended));
        assertThat(third.ack()).hasSize(1);
        assertThat(third.start()).isEmpty();
    }

    @Test
    void aStartKnownOnlyFromTheHeartbeatIsWrittenBeforeTheHeartbeatIsHeld() throws Exception {
        Machine m = machine("settled", "ap", 3);
        fleet.queue(m.tenant(), List.of(Fleet.spec("lost-start", 1, 512, 0, null, "ap")));
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1);
        var lease = m.beat(List.of()).start().getFirst();

        // the agent runs it; only its heartbeat says so (reports go nowhere else)
        var running = new AttemptReport(lease.jobId(), lease.attempt(), lease.epoch(), "settled-1",
                AttemptState.RUNNING, null, null, InstantSource.system().instant(), null, null, null);
        AtomicReference<Thread> holder = new AtomicReference<>();
        CompletableFuture<HeartbeatResponse> reply = CompletableFuture.supplyAsync(() -> {
            holder.set(Thread.currentThread());
            return m.agents().heartbeat(m.id(), new Heartbeat(m.id(), m.incarnation(), List.of(running), 30_000));
        });
        await().until(() -> held(m.broker(), holder, m.id()));
        assertThat(fleet.count("select count(*) from attempts where job_id = '" + lease.jobId() + "' and state = 'RUNNING'"))
                .as("settled while the heartbeat is held").isEqualTo(1);
        assertThat(fleet.count("select count(*) from jobs where id = '" + lease.jobId() + "' and state = 'RUNNING'")).isEqualTo(1);

        m.broker().signal(m.id()); // a wake-up with nothing new: it holds on, and writes nothing again
        await().until(() -> reply.isDone() || held(m.broker(), holder, m.id()));
        assertThat(reply).isNotDone();
        assertThat(fleet.count("select count(*) from job_history where job_id = '" + lease.jobId() + "' and to_state = 'RUNNING'"))
                .isEqualTo(1);

        fleet.queue(m.tenant(), List.of(Fleet.spec("next", 1, 512, 0, null, "ap")));
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1);
        HeartbeatResponse answer = reply.get();
        assertThat(answer.start()).extracting(l -> l.jobId()).doesNotContain(lease.jobId()).hasSize(1);
        assertThat(answer.kill()).isEmpty();
    }

    /**
     * A heartbeat whose end gave room back tells the scheduler at once, and its answer waits for what is placed in
     * that room: one answer acknowledges the end and starts the next attempt (one heartbeat a round, not two).
     */
    @Test
    void theAnswerToAnEndWaitsForThePlacementInItsRoom() throws Exception {
        Machine m = machine("refill", "oc", 7);
        AtomicInteger roomFreed = new AtomicInteger();
        m.agents().afterEnds(roomFreed::incrementAndGet, Duration.ofSeconds(30));
        fleet.queue(m.tenant(), List.of(Fleet.spec("first", 8, 512, 0, null, "oc")));
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1);
        var lease = m.beat(List.of()).start().getFirst();
        fleet.queue(m.tenant(), List.of(Fleet.spec("second", 8, 512, 0, null, "oc")));
        assertThat(m.cycle().runOnce().placed()).as("the machine is full").isZero();

        var now = InstantSource.system().instant();
        var ended = new AttemptReport(lease.jobId(), lease.attempt(), lease.epoch(), m.id(),
                AttemptState.SUCCEEDED, 0, null, now, now, "", "");
        AtomicReference<Thread> holder = new AtomicReference<>();
        CompletableFuture<HeartbeatResponse> reply = CompletableFuture.supplyAsync(() -> {
            holder.set(Thread.currentThread());
            return m.agents().heartbeat(m.id(), new Heartbeat(m.id(), m.incarnation(), List.of(ended), 30_000));
        });
        await().until(() -> held(m.broker(), holder, m.id()));
        assertThat(roomFreed).as("told at once").hasValue(1);
        assertThat(reply).isNotDone();

        m.cycle().lookAgain(); // what the loop does when told of room
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1);
        HeartbeatResponse answer = reply.get();
        assertThat(answer.ack()).singleElement().satisfies(a -> assertThat(a.jobId()).isEqualTo(lease.jobId()));
        assertThat(answer.start()).singleElement().satisfies(l -> assertThat(l.jobId()).isNotEqualTo(lease.jobId()));

        // an end already applied (sent again: its acknowledgement was lost) gives no room back: answered at once
        HeartbeatResponse again = m.agents().heartbeat(m.id(), new Heartbeat(m.id(), m.incarnation(), List.of(ended), 30_000));
        assertThat(again.ack()).hasSize(1);
        assertThat(roomFreed).hasValue(1);
    }

    /**
     * The backstop for time limits: an attempt still running past its job's limit (its agent did not stop it) is
     * killed by the heartbeat's answer, and keeps what it holds on its machine until its agent reports the process
     * gone: a process that outlives its limit never shares its room with another job.
     */
    @Test
    void anAttemptPastItsTimeLimitIsKilledByTheAnswerAndHoldsItsRoomUntilItsAgentReportsItGone() {
        Machine m = machine("overdue", "af", 6);
        var spec = Fleet.spec("overdue", 1, 512, 0, null, "af");
        spec = new JobSpec(spec.name(), spec.queue(), spec.priority(), spec.resources(), spec.placement(),
                new Execution(List.of("sleep", "600"), Map.of(), 10), spec.retry(), spec.labels());
        fleet.queue(m.tenant(), List.of(spec));
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1);
        var lease = m.beat(List.of()).start().getFirst();

        // placed two minutes ago, its agent started it a minute ago, and says it still runs (a start before its
        // placement would not be believed: the agent's clock is not ours)
        fleet.jdbc.sql("update attempts set scheduled_at = scheduled_at - interval '2 minutes' where job_id = :id")
                .param("id", lease.jobId()).update();
        var now = InstantSource.system().instant();
        var running = new AttemptReport(lease.jobId(), lease.attempt(), lease.epoch(), m.id(),
                AttemptState.RUNNING, null, null, now.minusSeconds(60), null, null, null);
        assertThat(m.beat(List.of(running)).kill()).as("the answer that settles its start").isEmpty();
        HeartbeatResponse answer = m.beat(List.of(running));
        assertThat(answer.kill()).singleElement().satisfies(k -> {
            assertThat(k.jobId()).isEqualTo(lease.jobId());
            assertThat(k.reason()).isEqualTo(AgentProtocol.TIMED_OUT);
        });
        assertThat(fleet.count("select alloc_cpu_millis from machines where id = '" + m.id() + "'"))
                .as("still held: the process may run").isEqualTo(1000);

        var gone = new AttemptReport(lease.jobId(), lease.attempt(), lease.epoch(), m.id(),
                AttemptState.FAILED, 143, FailureReason.TIMEOUT, now.minusSeconds(60),
                InstantSource.system().instant(), "", "");
        assertThat(m.beat(List.of(gone)).ack()).hasSize(1);
        assertThat(fleet.count("select alloc_cpu_millis from machines where id = '" + m.id() + "'")).isZero();
        assertThat(fleet.count("select count(*) from jobs where id = '" + lease.jobId() + "' and state = 'FAILED'"
                + " and failure_reason = 'TIMEOUT'")).isEqualTo(1);
    }

    /**
     * A heartbeat held while a newer join takes its machine over hands out nothing when woken, not even the lease
     * renewal an empty answer would be: it is refused (409 at the controller), and the old agent joins again.
     */
    @Test
    void aHeldHeartbeatOfASupersededIncarnationHandsOutNothing() {
        Machine m = machine("superseded", "sa", 4);
        AtomicReference<Thread> holder = new AtomicReference<>();
        CompletableFuture<HeartbeatResponse> reply = CompletableFuture.supplyAsync(() -> {
            holder.set(Thread.currentThread());
            return m.agents().heartbeat(m.id(), new Heartbeat(m.id(), m.incarnation(), List.of(), 30_000));
        });
        await().until(() -> held(m.broker(), holder, m.id()));

        long newer = fleet.machines.join(m.id(), "sa", Map.of(), null, 8_000, 16_384, 0, new byte[] {5});
        assertThat(newer).isGreaterThan(m.incarnation());
        fleet.queue(m.tenant(), List.of(Fleet.spec("for-the-new-one", 1, 512, 0, null, "sa")));
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1); // wakes the held heartbeat

        assertThat(reply).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
                .havingRootCause().isInstanceOf(AgentService.Superseded.class);
        Machine current = new Machine(m.tenant(), m.id(), newer, m.broker(), m.agents(), m.cycle());
        HeartbeatResponse answer = current.beat(List.of());
        assertThat(answer.start()).as("the lease is the new incarnation's").hasSize(1);
        assertThat(answer.start().getFirst().startWithinMs()).as("with the time left to start it")
                .isPositive().isLessThanOrEqualTo(SchedulerProperties.defaults().leaseTtl().toMillis());
    }

    private static Machine machine(String name, String region, int credential) {
        return Machine.joined(fleet, name, region, credential);
    }

    /** The heartbeat's thread waits on a registered ticket (and not on the database). */
    private static boolean held(LeaseBroker broker, AtomicReference<Thread> holder) {
        return held(broker, holder, "held-1");
    }

    private static boolean held(LeaseBroker broker, AtomicReference<Thread> holder, String machineId) {
        Thread t = holder.get();
        return t != null && broker.registered(machineId) && t.getState() == Thread.State.TIMED_WAITING;
    }
}
