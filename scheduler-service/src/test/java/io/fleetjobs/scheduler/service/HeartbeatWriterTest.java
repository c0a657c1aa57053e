package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.scheduler.service.agent.HeartbeatWriter;
import io.fleetjobs.store.HeartbeatWatermarks;
import io.fleetjobs.testsupport.SettableClock;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat writer does not queue behind a placement or an attempt's end holding a machine's row:
 * that machine's heartbeat waits for a later flush while the others are written, and is waited for only
 * once it has been pending for longer than allowed.
 */
class HeartbeatWriterTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private static Fleet fleet;
    private static SettableClock clock;

    @BeforeAll
    static void start() {
        clock = new SettableClock(T0);
        fleet = new Fleet(clock);
        fleet.machines.register("busy", "eu", Map.of(), null, 64_000, 65_536, 0);
        fleet.machines.register("idle", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        fleet.close();
    }

    private static Instant lastSeen(String machine) {
        return fleet.machines.get(machine).orElseThrow().lastHeartbeatAt();
    }

    private static Connection holding(String machine) throws Exception {
        Connection other = fleet.dataSource.getConnection();
        other.setAutoCommit(false);
        try (var lock = other.prepareStatement("select 1 from machines where id = ? for no key update")) {
            lock.setString(1, machine);
            lock.executeQuery().close();
        }
        return other;
    }

    @Test
    void aHeldRowIsLeftForALaterFlushUntilItsHeartbeatIsOverdue() throws Exception {
        var watermarks = new HeartbeatWatermarks(fleet.jdbc, clock);
        HeartbeatWriter writer = new HeartbeatWriter(fleet.machines, watermarks, Duration.ofMillis(200),
                Duration.ofSeconds(1), clock);
        Instant first = T0.plusSeconds(10);
        clock.set(first);
        writer.record("busy", first);
        writer.record("idle", first);
        try (Connection other = holding("busy")) {
            writer.flush();
            assertThat(lastSeen("idle")).isEqualTo(first);
            assertThat(lastSeen("busy")).isBefore(first);
            assertThat(watermarks.judgeAt(first.plusSeconds(5), Duration.ofMinutes(1)))
                    .as("what it skipped holds its watermark back").isEqualTo(first);

            // still held, and now overdue: the next flush waits for the row
            clock.set(first.plusSeconds(2));
            CompletableFuture<Void> flush = CompletableFuture.runAsync(writer::flush);
            await().until(() -> fleet.jdbc.sql("""
                            select count(*) from pg_stat_activity
                            where wait_event_type = 'Lock' and query like '%last_heartbeat_at%'""")
                    .query(Long.class).single() == 1);
            assertThat(flush).isNotDone();
            other.rollback();
            flush.get();
        }
        assertThat(lastSeen("busy")).isEqualTo(first);
        assertThat(watermarks.judgeAt(first.plusSeconds(5), Duration.ofMinutes(1)))
                .as("everything heard before the flush is written").isEqualTo(first.plusSeconds(2));
    }

    /** A replica that shed or could not answer heartbeats says so: silence is judged no later than its trouble began. */
    @Test
    void aReplicaInTroubleHoldsItsWatermarkBackToWhenTheTroubleBegan() {
        var watermarks = new HeartbeatWatermarks(fleet.jdbc, clock);
        HeartbeatWriter writer = new HeartbeatWriter(fleet.machines, watermarks, Duration.ofMillis(200),
                Duration.ofSeconds(1), clock);
        Instant t = T0.plus(Duration.ofHours(1)); // the other tests' replicas long gone by then
        clock.set(t);
        writer.troubled();
        clock.set(t.plusSeconds(5));
        writer.record("idle", t.plusSeconds(5));
        writer.flush();
        assertThat(lastSeen("idle")).isEqualTo(t.plusSeconds(5));
        assertThat(watermarks.judgeAt(t.plusSeconds(5), Duration.ofMinutes(1))).as("in trouble").isEqualTo(t);

        clock.set(t.plusSeconds(20)); // calm for longer than 8 s
        writer.flush();
        assertThat(watermarks.judgeAt(t.plusSeconds(20), Duration.ofMinutes(1))).isEqualTo(t.plusSeconds(20));
    }
}
