package io.fleetjobs.store;

/**
 * The transactional outbox's sharding. Events are appended by {@link JobWrites} inside the transaction
 * whose change they announce, after the row they announce is locked (a guarded update or an insert), so
 * that ids of one key's rows follow commit order; the relay publishes each shard in id order.
 */
public final class Outbox {
    /** Rows are sharded by key; a relay owns one shard at a time, which keeps per-key order. */
    public static final int SHARDS = 16;

    private Outbox() {
    }

    public static int shardOf(String key) {
        return Math.floorMod(key.hashCode(), SHARDS);
    }
}
