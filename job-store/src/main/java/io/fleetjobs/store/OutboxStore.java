package io.fleetjobs.store;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What the outbox relay reads and deletes. A shard has one publisher at a time: the relay takes the
 * transaction-scoped advisory locks of the shards no other relay holds ({@link #tryLockShards}) and reads
 * without row locks (each would be a WAL record). Call in the relay's transaction.
 */
public final class OutboxStore {
    /** First key of the advisory locks of the relay's shards ("OUTB"). */
    private static final int LOCK_SPACE = 0x4F555442;

    private final JdbcClient jdbc;

    public OutboxStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** An event waiting to be published. */
    public record Row(long id, String topic, String key, String payload) {
    }

    /**
     * Takes every shard no other relay holds, for this transaction, in one statement.
     *
     * @return the shards this transaction now holds (none when other relays hold them all)
     */
    public int[] tryLockShards() {
        return jdbc.sql("select s from generate_series(0, :shards - 1) s where pg_try_advisory_xact_lock(:space, s)")
                .param("shards", Outbox.SHARDS).param("space", LOCK_SPACE)
                .query(Integer.class).list().stream().mapToInt(Integer::intValue).toArray();
    }

    /** The oldest rows of {@code shards}, in id order (the order of commit per key). */
    public List<Row> oldest(int[] shards, int limit) {
        return jdbc.sql("""
                        select id, topic, key, payload from outbox
                        where shard = any(:shards) and published_at is null
                        order by id limit :limit""")
                .param("shards", Arrays.stream(shards).boxed().toArray(Integer[]::new)).param("limit", limit)
                .query((rs, n) -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)))
                .list();
    }

    /** Deletes rows published: the outbox holds only what Kafka has not yet acknowledged. */
    public void delete(List<Row> rows) {
        jdbc.sql("delete from outbox where id = any(:ids)")
                .param("ids", rows.stream().map(Row::id).toArray(Long[]::new))
                .update();
    }

    /**
     * Vacuums the outbox: removes the rows the relay deleted, and their primary-key entries. The outbox is a queue
     * (every event inserted once and deleted once), and its read walks the primary key from the oldest entry, dead ones
     * included, until vacuum removes them; autovacuum comes at most once a minute, and in a minute of W1 the walk grew
     * to thousands of pages a read. {@code skip_locked}: a relay that finds another's vacuum running goes on; {@code
     * truncate false}: no exclusive lock to give back the table's trailing pages, which the next inserts reuse. Call
     * outside a transaction (VACUUM cannot run in one). A database user that may not vacuum the table gets a warning
     * from the server and nothing is done.
     */
    public void vacuum() {
        jdbc.sql("vacuum (skip_locked, truncate false, index_cleanup on) outbox").update();
    }

    /** How many rows wait, and when the oldest was written (null: none). */
    public record Backlog(long rows, Instant oldest) {
    }

    public Backlog backlog() {
        return jdbc.sql("select count(*), min(created_at) from outbox where published_at is null")
                .query((rs, n) -> new Backlog(rs.getLong(1), JobRows.instant(rs, 2))).single();
    }
}
