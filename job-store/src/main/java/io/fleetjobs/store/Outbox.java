package io.fleetjobs.store;

import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Appends events to the transactional outbox. Call it inside the transaction whose change the
 * event announces, after the row it announces is locked (a guarded update or an insert), so that
 * ids of one key's rows follow commit order; the relay publishes each shard in id order.
 */
public final class Outbox {
    /** Rows are sharded by key; a relay owns one shard at a time, which keeps per-key order. */
    public static final int SHARDS = 16;

    private final JdbcClient jdbc;
    private final InstantSource clock;

    public Outbox(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    public static int shardOf(String key) {
        return Math.floorMod(key.hashCode(), SHARDS);
    }

    public void append(String topic, String key, UUID eventId, Object payload) {
        jdbc.sql("""
                        insert into outbox (event_id, topic, key, shard, payload, created_at)
                        values (:eventId, :topic, :key, :shard, :payload, :now)""")
                .param("eventId", eventId)
                .param("topic", topic)
                .param("key", key)
                .param("shard", shardOf(key))
                .param("payload", Json.write(payload))
                .param("now", OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC))
                .update();
    }
}
