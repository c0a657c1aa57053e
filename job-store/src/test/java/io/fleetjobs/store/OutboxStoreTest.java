package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the relay reads and deletes: every free shard in one transaction, one relay a shard at a time. */
class OutboxStoreTest {
    private static StoreFixture f;
    private static OutboxStore outbox;

    @BeforeAll
    static void start() {
        f = new StoreFixture(4);
        outbox = new OutboxStore(f.jdbc);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void aRelayTakesEveryFreeShardAndAnotherNoneUntilItCommits() throws Exception {
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

        assertThat(first.get(30, TimeUnit.SECONDS)).as("the first relay takes them all")
                .containsExactly(java.util.stream.IntStream.range(0, Outbox.SHARDS).toArray());
        assertThat(second).as("while it holds them, another relay gets none").isEmpty();
        assertThat(f.jobs.inTransaction(outbox::tryLockShards)).as("once it committed, they are free again")
                .hasSize(Outbox.SHARDS);
    }

    @Test
    void readsTheOldestRowsOfTheShardsHeldInIdOrderAndDeletesWhatWasSent() {
        for (int i = 0; i < 6; i++) {
            f.submitted("outbox-" + i); // two events each (submitted, then queued), keys spread over the shards
        }
        List<OutboxStore.Row> all = f.jobs.inTransaction(() -> outbox.oldest(outbox.tryLockShards(), 1_000));
        assertThat(all).hasSize((int) f.count("select count(*) from outbox"));
        assertThat(all).extracting(OutboxStore.Row::id).isSorted();

        int shard = Outbox.shardOf(all.getFirst().key());
        List<OutboxStore.Row> one = f.jobs.inTransaction(() -> outbox.oldest(new int[] {shard}, 1_000));
        assertThat(one).isNotEmpty().allMatch(r -> Outbox.shardOf(r.key()) == shard);
        assertThat(f.jobs.inTransaction(() -> outbox.oldest(outbox.tryLockShards(), 3))).extracting(OutboxStore.Row::id)
                .containsExactlyElementsOf(all.subList(0, 3).stream().map(OutboxStore.Row::id).toList());

        f.jobs.inTransaction(() -> {
            outbox.delete(one);
            return null;
        });
        assertThat(f.count("select count(*) from outbox")).isEqualTo(all.size() - one.size());
    }

    @Test
    void vacuumRemovesWhatTheRelayDeletedSoThatItsReadNoLongerStepsOverIt() {
        f.jdbc.sql("""
                insert into outbox (event_id, topic, key, shard, payload, created_at)
                select gen_random_uuid(), 'jobs', 'k' || i, i % 16, repeat('x', 400), now()
                from generate_series(1, 5000) i""").update();
        f.jobs.inTransaction(() -> {
            int[] shards = outbox.tryLockShards();
            List<OutboxStore.Row> rows;
            while (!(rows = outbox.oldest(shards, 1_000)).isEmpty()) {
                outbox.delete(rows); // as the relay does, batch after batch
            }
            return null;
        });
        long stepped = buffersOfTheRead();
        assertThat(stepped).as("before a vacuum, the read walks the deleted rows' index entries").isGreaterThan(10);

        outbox.vacuum();

        assertThat(buffersOfTheRead()).as("after it, the read finds the empty index at once (was %d)", stepped)
                .isLessThanOrEqualTo(2);
    }

    /** The shared buffers the relay's read of an empty outbox touches. */
    private static long buffersOfTheRead() {
        List<String> plan = f.jdbc.sql("""
                        explain (analyze, buffers, costs off, timing off)
                        select id, topic, key, payload from outbox
                        where shard = any(cast(:shards as int[])) and published_at is null order by id limit 1000""")
                .param("shards", java.util.stream.IntStream.range(0, Outbox.SHARDS).boxed().toArray(Integer[]::new))
                .query(String.class).list();
        var buffers = java.util.regex.Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?")
                .matcher(String.join("\n", plan));
        if (!buffers.find()) {
            return 0; // no shared buffer touched at all
        }
        return count(buffers.group(1)) + count(buffers.group(2));
    }

    private static long count(String digits) {
        return digits == null ? 0 : Long.parseLong(digits);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
