package io.fleetjobs.store;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.core.type.TypeReference;

/**
 * What the outbox relay reads and writes. Since V33 a job's history row is also its event: the relay holds the one
 * cursor row ({@link #lockCursor}) for the transaction of a batch, reads the history above it in position order
 * ({@link #above}), publishes what {@link EventGaps} allows and moves the cursor ({@link #moveCursor}). The table
 * {@code outbox} holds only what replicas of the version before V33 wrote during a rolling upgrade: the relay drains
 * it the old way ({@link #tryLockShards}, {@link #oldest}, {@link #delete}). Call in the relay's transaction.
 */
public final class OutboxStore {
    /** First key of the advisory locks of the old outbox's shards ("OUTB"). */
    private static final int LOCK_SPACE = 0x4F555442;
    /** The old outbox's rows were sharded by key (16 shards); a relay drains one shard at a time, keeping per-key order. */
    public static final int SHARDS = 16;
    /** An event's data, as {@link JobWrites} keeps it beside the history row. */
    private static final TypeReference<Map<String, String>> STRINGS = new TypeReference<>() {
    };

    private final JdbcClient jdbc;

    public OutboxStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** An event waiting to be published. */
    public record Row(long id, String topic, String key, String payload) {
    }

    /**
     * The cursor, locked for this transaction, and the oldest transaction running when the statement began (for
     * {@link EventGaps#publishable}); null when another relay holds it.
     */
    public record Cursor(long position, long xmin) {
    }

    public Cursor lockCursor() {
        return jdbc.sql("""
                        select position, cast(cast(pg_snapshot_xmin(pg_current_snapshot()) as text) as bigint)
                        from event_relay where id = 1 for update skip locked""")
                .query((rs, n) -> new Cursor(rs.getLong(1), rs.getLong(2))).optional().orElse(null);
    }

    /**
     * A history row above the cursor: its position, and its event as published ({@code payload} null for a row
     * written before V33, which was published through {@code outbox}).
     */
    public record Event(long position, String key, String payload) {
    }

    /** The history rows above {@code after}, in position order, at most {@code limit}. */
    public List<Event> above(long after, int limit) {
        return jdbc.sql("""
                        select h.position, h.job_id, h.event_id, h.event_type, j.tenant_id, h.version, h.at,
                               h.from_state, h.to_state, h.reason, h.event_data
                        from job_history h join jobs j on j.id = h.job_id
                        where h.position > :after order by h.position limit :limit""")
                .param("after", after).param("limit", limit)
                .query((rs, n) -> {
                    UUID jobId = rs.getObject(2, UUID.class);
                    String payload = rs.getObject(3, UUID.class) == null ? null : Json.write(event(rs));
                    return new Event(rs.getLong(1), jobId.toString(), payload);
                })
                .list();
    }

    /** The event of a history row read with the columns of {@link #above}; its event id not null. */
    private static JobEvent event(ResultSet rs) throws SQLException {
        return new JobEvent(rs.getObject(3, UUID.class), JobEvent.SCHEMA_VERSION, JobEventType.valueOf(rs.getString(4)),
                rs.getObject(2, UUID.class), rs.getObject(5, UUID.class), rs.getLong(6), JobRows.instant(rs, 7),
                JobRows.state(rs.getString(8)), JobRows.state(rs.getString(9)), rs.getString(10),
                data(rs.getString(11)));
    }

    /**
     * The events as the history recorded them, of those a carrier claims ({@code jobs.events} as a consumer read
     * it): each found by its job, version and event id, every field then the history's, the tenant the job's; one
     * the history does not hold (made up, or its job deleted since) is left out. Kafka carries events, never the
     * truth: whoever can write to the topic can claim anything.
     */
    public List<JobEvent> asRecorded(List<JobEvent> claimed) {
        if (claimed.isEmpty()) {
            return List.of();
        }
        return jdbc.sql("""
                        select h.position, h.job_id, h.event_id, h.event_type, j.tenant_id, h.version, h.at,
                               h.from_state, h.to_state, h.reason, h.event_data
                        from unnest(cast(:jobs as uuid[]), cast(:versions as bigint[]), cast(:events as uuid[]))
                               as c(job_id, version, event_id)
                        join job_history h on h.job_id = c.job_id and h.version = c.version and h.event_id = c.event_id
                        join jobs j on j.id = h.job_id
                        order by h.position""")
                .param("jobs", claimed.stream().map(JobEvent::jobId).toArray(UUID[]::new))
                .param("versions", claimed.stream().map(JobEvent::jobVersion).toArray(Long[]::new))
                .param("events", claimed.stream().map(JobEvent::eventId).toArray(UUID[]::new))
                .query((rs, n) -> event(rs))
                .list();
    }

    private static Map<String, String> data(String json) {
        return json == null ? Map.of() : Json.MAPPER.readValue(json, STRINGS);
    }

    /**
     * Moves the cursor. @return the first transaction id not yet given when the statement began (for
     * {@link EventGaps#stoppedAt}): the statement comes after the read.
     */
    public long moveCursor(long position) {
        return jdbc.sql("""
                        update event_relay set position = :p where id = 1
                        returning cast(cast(pg_snapshot_xmax(pg_current_snapshot()) as text) as bigint)""")
                .param("p", position).query(Long.class).single();
    }

    /**
     * Takes every shard of the old outbox no other relay holds, for this transaction, in one statement.
     *
     * @return the shards this transaction now holds (none when other relays hold them all)
     */
    public int[] tryLockShards() {
        return jdbc.sql("select s from generate_series(0, :shards - 1) s where pg_try_advisory_xact_lock(:space, s)")
                .param("shards", SHARDS).param("space", LOCK_SPACE)
                .query(Integer.class).list().stream().mapToInt(Integer::intValue).toArray();
    }

    /** The oldest rows of the old outbox's {@code shards}, in id order (the order of commit per key). */
    public List<Row> oldest(int[] shards, int limit) {
        return jdbc.sql("""
                        select id, topic, key, payload from outbox
                        where shard = any(:shards) and published_at is null
                        order by id limit :limit""")
                .param("shards", Arrays.stream(shards).boxed().toArray(Integer[]::new)).param("limit", limit)
                .query((rs, n) -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4)))
                .list();
    }

    /** Deletes rows of the old outbox published. */
    public void delete(List<Row> rows) {
        jdbc.sql("delete from outbox where id = any(:ids)")
                .param("ids", rows.stream().map(Row::id).toArray(Long[]::new))
                .update();
    }

    /** How many rows wait, and when the oldest was written (null: none). */
    public record Backlog(long rows, Instant oldest) {
    }

    /** The events above the cursor, and the oldest one's time of change. */
    public Backlog backlog() {
        return jdbc.sql("""
                        select count(*), min(at) from job_history
                        where position > (select position from event_relay where id = 1) and event_id is not null""")
                .query((rs, n) -> new Backlog(rs.getLong(1), JobRows.instant(rs, 2))).single();
    }
}
