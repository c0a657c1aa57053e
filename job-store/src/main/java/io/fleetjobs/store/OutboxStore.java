package io.fleetjobs.store;

import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What the outbox relay reads and deletes. A shard has one publisher at a time: the relay takes the
 * shard's transaction-scoped advisory lock ({@link #tryLockShard}) and reads without row locks (each
 * would be a WAL record). Call in the relay's transaction.
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

    /** Whether this transaction now holds {@code shard}; false when another relay does. */
    public boolean tryLockShard(int shard) {
        return jdbc.sql("select pg_try_advisory_xact_lock(:space, :shard)")
                .param("space", LOCK_SPACE).param("shard", shard).query(Boolean.class).single();
    }

    /** The oldest rows of a shard, in id order (the order of commit per key). */
    public List<Row> oldest(int shard, int limit) {
        return jdbc.sql("""
                        select id, topic, key, payload from outbox
                        where shard = :shard and published_at is null
                        order by id limit :limit""")
                .param("shard", shard).param("limit", limit)
                .query((rs, n) -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)))
                .list();
    }

    /** Deletes rows published: the outbox holds only what Kafka has not yet acknowledged. */
    public void delete(List<Row> rows) {
        jdbc.sql("delete from outbox where id = any(:ids)")
                .param("ids", rows.stream().map(Row::id).toArray(Long[]::new))
                .update();
    }

    /** How many rows wait, and when the oldest was written (null: none). */
    public record Backlog(long rows, Instant oldest) {
    }

    public Backlog backlog() {
        return jdbc.sql("select count(*), min(created_at) from outbox where published_at is null")
                .query((rs, n) -> new Backlog(rs.getLong(1), JobRows.instant(rs, 2))).single();
    }
}
