package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the relay reads and writes: the history above its cursor as events, one relay at a time, and a gap between
 * positions passed only once it is certain to stay empty; and the old outbox of a rolling upgrade, one relay a shard.
 */
class OutboxStoreTest {
    private static StoreFixture f;
    private static OutboxStore outbox;

    @BeforeAll
    static void start() {
        f = new StoreFixture(6);
        outbox = new OutboxStore(f.jdbc);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void aJobsHistoryRowsAreItsEventsInPositionOrder() {
        long cursor = cursorNow();
        JobRecord job = admitted("history-events");

        List<OutboxStore.Event> read = f.jobs.inTransaction(() -> outbox.above(cursor, 1_000)).stream()
                .filter(e -> e.key().equals(job.id().toString())).toList();

        assertThat(read).extracting(OutboxStore.Event::position).isSorted().hasSize(2);
        List<JobEvent> events = read.stream().map(e -> Json.read(e.payload(), JobEvent.class)).toList();
        assertThat(events).extracting(JobEvent::to).containsExactly(JobState.SUBMITTED, JobState.QUEUED);
        assertThat(events).extracting(JobEvent::jobVersion).containsExactly(1L, 2L);
        assertThat(events).allSatisfy(e -> {
            assertThat(e.tenantId()).isEqualTo(f.tenant);
            assertThat(e.type()).isEqualTo(JobEventType.STATE_CHANGED);
            assertThat(e.eventId()).isNotNull();
        });
        assertThat(events.get(0).eventId()).isNotEqualTo(events.get(1).eventId());
    }

    @Test
    void aSecondRelayFindsTheCursorHeldUntilTheFirstCommits() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<OutboxStore.Cursor> first = CompletableFuture.supplyAsync(() -> f.jobs.inTransaction(() -> {
            OutboxStore.Cursor cursor = outbox.lockCursor();
            held.countDown();
            await(release);
            return cursor;
        }));
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();

        OutboxStore.Cursor second = f.jobs.inTransaction(outbox::lockCursor);
        release.countDown();

        assertThat(first.get(30, TimeUnit.SECONDS)).isNotNull();
        assertThat(second).as("while the first relay holds the cursor, another gets none").isNull();
        assertThat(f.jobs.inTransaction(outbox::lockCursor)).as("once it committed, it is free again").isNotNull();
    }

    /**
     * Two writers commit out of order: the one that took the lower position is still open when the other's row is
     * visible. The relay must not pass the open one's position; it passes it once it is visible, or, if that
     * transaction rolls back, once a snapshot proves that it has ended.
     */
    @Test
    void aGapIsNeverPassedWhileItsTransactionMayStillCommit() throws Exception {
        for (boolean commits : new boolean[] {true, false}) {
            long cursor = moveCursorToTheEnd();
            EventGaps gaps = new EventGaps();
            CountDownLatch written = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            CompletableFuture<Void> slow = CompletableFuture.runAsync(() -> f.jobs.inTransaction(() -> {
                admitted("slow-" + commits); // takes the lower positions
                written.countDown();
                await(finish);
                if (!commits) {
                    throw new IllegalStateException("rolled back on purpose");
                }
                return null;
            }));
            assertThat(written.await(30, TimeUnit.SECONDS)).isTrue();
            admitted("fast-" + commits); // higher positions, committed first

            Step step = relayStep(cursor, gaps);
            assertThat(step.passed).as("the fast writer's rows are visible above a gap: nothing may pass").isZero();
            assertThat(relayStep(cursor, gaps).passed).as("still open: the proof cannot hold yet").isZero();

            finish.countDown();
            try {
                slow.get(30, TimeUnit.SECONDS);
            } catch (Exception rolledBack) {
                assertThat(commits).isFalse();
            }
            Step after = relayStep(cursor, gaps);
            if (commits) {
                assertThat(after.passed).as("the slow rows came: every position in order").isEqualTo(4);
            } else {
                assertThat(after.passed).as("the slow writer has ended without its rows: the gap stays empty")
                        .isEqualTo(2);
                assertThat(after.read).hasSize(2);
            }
        }
    }

    /** What one pass of the relay found above {@code cursor} and may pass, moving nothing but the gap's proof. */
    private record Step(List<Long> read, int passed) {
    }

    private static Step relayStep(long cursor, EventGaps gaps) {
        return f.jobs.inTransaction((Supplier<Step>) () -> {
            OutboxStore.Cursor locked = outbox.lockCursor();
            List<Long> positions = outbox.above(cursor, 1_000).stream().map(OutboxStore.Event::position).toList();
            int passed = gaps.publishable(cursor, positions, locked.xmin());
            long xmax = outbox.moveCursor(cursor);
            gaps.afterRead(cursor, positions, passed, xmax);
            return new Step(positions, passed);
        });
    }

    @Test
    void theOldOutboxOfARollingUpgradeIsDrainedOneRelayAShardAtATime() throws Exception {
        f.jdbc.sql("""
                insert into outbox (event_id, topic, key, shard, payload, created_at)
                select gen_random_uuid(), 'jobs.events', 'k' || i, i % 16, '{}', now() from generate_series(1, 40) i""")
                .update();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<int[]> first = CompletableFuture.supplyAsync(() -> f.jobs.inTransaction(() -> {
            int[] shards = outbox.tryLockShards();
            held.countDown();
            await(release);
            return shards;
        }));
        assertThat(held.await(30, TimeUnit.SECONDS)).isTrue();
        int[] second = f.jobs.inTransaction(outbox::tryLockShards);
        release.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS)).hasSize(OutboxStore.SHARDS);
        assertThat(second).as("while one relay holds the shards, another gets none").isEmpty();

        List<OutboxStore.Row> all = f.jobs.inTransaction(() -> outbox.oldest(outbox.tryLockShards(), 1_000));
        assertThat(all).hasSize(40).extracting(OutboxStore.Row::id).isSorted();
        f.jobs.inTransaction(() -> {
            outbox.delete(all.subList(0, 25));
            return null;
        });
        assertThat(f.count("select count(*) from outbox")).isEqualTo(15);
    }

    /** Submitted and admitted at once: two history rows, two events. */
    private static JobRecord admitted(String name) {
        return ((Submission.Accepted) f.jobs.submit(f.tenant, StoreFixture.aJob(name), null, true)).job();
    }

    private static long cursorNow() {
        return f.count("select position from event_relay");
    }

    private static long moveCursorToTheEnd() {
        f.jdbc.sql("update event_relay set position = (select coalesce(max(position), 0) from job_history)").update();
        return cursorNow();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
