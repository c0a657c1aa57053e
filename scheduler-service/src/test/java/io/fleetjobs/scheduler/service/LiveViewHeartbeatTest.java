package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AgentProtocol.Lease;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.service.agent.AgentService;
import io.fleetjobs.store.PlacementStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A scheduler keeps what it last read of each machine's live attempts, and answers a heartbeat from it only when the
 * answer says nothing: it never starts, kills or writes from it, its machine's incarnation is checked all the same,
 * a wake-up of the machine forgets it, and an unsignalled change is seen once it is a second old (stepped clock).
 */
class LiveViewHeartbeatTest {
    private static Fleet fleet;
    private final AtomicLong nanos = new AtomicLong();

    @BeforeAll
    static void start() {
        fleet = new Fleet(InstantSource.system());
    }

    @AfterAll
    static void stop() {
        fleet.close();
    }

    private Machine machine(String name, String region, int credential) {
        Machine m = Machine.joined(fleet, name, region, credential);
        m.agents().keepViews(Duration.ofSeconds(1), nanos::get);
        return m;
    }

    @Test
    void aHeartbeatWithNothingToBeToldIsAnsweredFromTheViewAndAnUnsignalledCancelIsSeenWhenTheViewIsOld() {
        Machine m = machine("viewed", "eu", 11);
        Lease lease = placeAndLease(m, "long");
        AttemptReport running = runningInView(m, lease);
        long[] before = m.agents().viewCounts();
        assertThat(m.beat(List.of(running)).kill()).isEmpty();
        assertThat(m.agents().viewCounts()).as("answered from the view, nothing read")
                .containsExactly(before[0] + 1, before[1]);

        cancelUnannounced(lease); // another replica's, its event not yet arrived
        nanos.addAndGet(Duration.ofMillis(900).toNanos());
        assertThat(m.beat(List.of(running)).kill()).as("the view is 0.9 s old: the kill waits").isEmpty();
        nanos.addAndGet(Duration.ofMillis(200).toNanos());
        assertThat(m.beat(List.of(running)).kill()).as("1.1 s old: read again").singleElement()
                .satisfies(k -> assertThat(k.reason()).isEqualTo("canceled"));
    }

    @Test
    void aWakeUpOfTheMachineForgetsItsView() {
        Machine m = machine("woken", "us", 12);
        Lease lease = placeAndLease(m, "long");
        AttemptReport running = runningInView(m, lease);

        cancelUnannounced(lease);
        m.broker().signal(m.id()); // the cancel's event
        assertThat(m.beat(List.of(running)).kill()).singleElement()
                .satisfies(k -> assertThat(k.reason()).isEqualTo("canceled"));
    }

    @Test
    void anAttemptTheViewDoesNotKnowIsReadNotKilled() {
        Machine m = machine("unknown", "ap", 13);
        Lease first = placeAndLease(m, "first");
        AttemptReport firstRunning = runningInView(m, first); // the view: the first attempt only

        // another replica places a second job here and leases it to the agent; its wake-up has not arrived here
        fleet.queue(m.tenant(), List.of(Fleet.spec("second", 1, 512, 0, null, "ap")));
        var elsewhere = new SchedulerCycle(fleet.jobs, new PlacementStore(fleet.jdbc, fleet.jobs), new PlacementEngine(),
                SchedulerProperties.defaults(), new SimpleMeterRegistry(), machines -> { });
        assertThat(elsewhere.runOnce().placed()).isEqualTo(1);
        var second = fleet.jdbc.sql("select job_id, attempt, lease_epoch from attempts where machine_id = :m"
                        + " and job_id <> :first and released_at is null").param("m", m.id()).param("first", first.jobId())
                .query((rs, i) -> new AttemptReport(rs.getObject(1, UUID.class), rs.getInt(2), rs.getLong(3),
                        m.id(), AttemptState.RUNNING, null, null, Instant.now(), null, null, null)).single();

        HeartbeatResponse answer = m.beat(List.of(firstRunning, second));
        assertThat(answer.kill()).as("the view does not know it; the database does").isEmpty();
        assertThat(fleet.count("select count(*) from attempts where job_id = '" + second.jobId() + "' and state = 'RUNNING'"))
                .isEqualTo(1);
    }

    @Test
    void anEndIsTakenIntoTheViewAndNothingEndedIsLeasedAgain() {
        Machine m = machine("ended", "sa", 14);
        Lease lease = placeAndLease(m, "quick");
        long[] before = m.agents().viewCounts();
        HeartbeatResponse ended = m.beat(List.of(report(m, lease, AttemptState.SUCCEEDED)));
        assertThat(ended.ack()).hasSize(1);
        assertThat(ended.start()).isEmpty();
        HeartbeatResponse after = m.beat(List.of());
        assertThat(after.start()).as("the view lost it with its end").isEmpty();
        assertThat(m.agents().viewCounts()).as("both from the view").containsExactly(before[0] + 2, before[1]);
        assertThat(fleet.count("select count(*) from jobs where id = '" + lease.jobId() + "' and state = 'SUCCEEDED'"))
                .isEqualTo(1);
    }

    @Test
    void aJoinOnAnotherReplicaSupersedesAHeartbeatTheViewWouldAnswer() {
        Machine m = machine("rejoined", "af", 15);
        Lease lease = placeAndLease(m, "long");
        AttemptReport running = runningInView(m, lease);
        long[] before = m.agents().viewCounts();
        assertThat(m.beat(List.of(running)).kill()).isEmpty();
        assertThat(m.agents().viewCounts()[0]).isEqualTo(before[0] + 1);

        // the machine joined again through another replica, and this view still has the old incarnation: the old
        // agent's end report (its answer is not held here, so no check after a hold catches it)
        fleet.machines.join(m.id(), "af", Map.of(), null, 8_000, 16_384, 0, new byte[] {16});
        assertThatThrownBy(() -> m.beat(List.of(report(m, lease, AttemptState.SUCCEEDED))))
                .isInstanceOf(AgentService.Superseded.class);
    }

    @Test
    void theEventOfAPlacementAHeartbeatReadAlreadyWakesNothing() {
        Machine m = machine("echoed", "me", 17);
        Lease lease = placeAndLease(m, "echoed"); // this replica's commit signalled the machine; its heartbeat read it
        var ticket = m.broker().register(m.id());
        m.broker().placed(m.id(), lease.jobId(), lease.attempt()); // the same placement's event, from Kafka
        assertThat(ticket).as("read already: no wake-up").isNotDone();
        m.broker().placed(m.id(), lease.jobId(), lease.attempt() + 1);
        assertThat(ticket).as("an attempt no read found: woken").isDone();
    }

    /** Queues one job on the machine's region, places it and hands its lease to the agent. */
    private static Lease placeAndLease(Machine m, String name) {
        fleet.queue(m.tenant(), List.of(Fleet.spec(name, 1, 512, 0, null, regionOf(m))));
        assertThat(m.cycle().runOnce().placed()).isEqualTo(1);
        return m.beat(List.of()).start().getFirst();
    }

    /** The agent reports the attempt running: its start is settled (a read), then a read leaves it in the view. */
    private static AttemptReport runningInView(Machine m, Lease lease) {
        AttemptReport running = report(m, lease, AttemptState.RUNNING);
        assertThat(m.beat(List.of(running)).kill()).as("settles its start (read, not from the view)").isEmpty();
        assertThat(m.beat(List.of(running)).kill()).isEmpty();
        return running;
    }

    /** A cancel that no event announced here. */
    private static void cancelUnannounced(Lease lease) {
        fleet.jdbc.sql("update jobs set cancel_requested = true where id = :id").param("id", lease.jobId()).update();
    }

    private static String regionOf(Machine m) {
        return fleet.jdbc.sql("select region from machines where id = :id").param("id", m.id()).query(String.class).single();
    }

    private static AttemptReport report(Machine m, Lease lease, AttemptState state) {
        Instant now = InstantSource.system().instant();
        return new AttemptReport(lease.jobId(), lease.attempt(), lease.epoch(), m.id(), state,
                state == AttemptState.SUCCEEDED ? 0 : null, null, now, state.isLive() ? null : now, "", "");
    }
}
