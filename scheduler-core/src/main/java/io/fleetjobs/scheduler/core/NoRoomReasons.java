package io.fleetjobs.scheduler.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * When the first reason of a job that waits for room is written to its row: once the job has waited {@code hold}
 * since this replica first found it without room, not at the first look. In a busy fleet most jobs find no room at
 * their first look and a place a moment later (W1: 1.2 rows written a job, for sentences nobody read); a person who
 * asks why a job waits sees admission's "waiting for placement" for those few seconds, then the scheduler's reason.
 *
 * <pre>
 *   found without room (no room now, or over quota), its row showing no such reason yet:
 *     first time                                  remembered, not written
 *     again, hold passed since the first time     written
 *     created more than {@link #HORIZON} ago      written at once (its first look may lie beyond the memory)
 *     the memory holding {@link #CAPACITY} jobs   written at once (as with a hold of 0)
 *   placed                                        forgotten
 * </pre>
 *
 * A job that can never fit gets its reason at once (its backoff is written with it), and so does a preemptor, whose
 * reason names its victims; the caller decides which ask. The memory is this replica's: a job another replica looks
 * at next waits its hold there. Entries older than {@link #HORIZON} are dropped (they are of jobs the horizon rule
 * writes at once), so that jobs placed elsewhere or cancelled do not stay. Thread-safe: a replica's workers share it.
 */
public final class NoRoomReasons {
    /** The most jobs remembered; beyond, reasons are written at once. About 100 bytes each. */
    public static final int CAPACITY = 100_000;
    /** A job older than this gets its reason at once. */
    public static final Duration HORIZON = Duration.ofMinutes(10);

    private final Duration hold;
    private final int capacity;
    /** First found without room, in the order found (so the oldest are first). */
    private final LinkedHashMap<UUID, Instant> firstFound = new LinkedHashMap<>();

    public NoRoomReasons(Duration hold) {
        this(hold, CAPACITY);
    }

    NoRoomReasons(Duration hold, int capacity) {
        this.hold = Objects.requireNonNull(hold, "hold");
        if (hold.isNegative()) {
            throw new IllegalArgumentException("hold must not be negative: " + hold);
        }
        this.capacity = capacity;
    }

    /**
     * Whether the first reason of a job found without room at {@code now} is written now.
     *
     * @param createdAt when the job was submitted
     */
    public synchronized boolean due(UUID jobId, Instant createdAt, Instant now) {
        if (hold.isZero() || !now.isBefore(createdAt.plus(HORIZON))) {
            firstFound.remove(jobId);
            return true;
        }
        forgetOlderThan(now.minus(HORIZON));
        Instant first = firstFound.get(jobId);
        if (first != null) {
            return !now.isBefore(first.plus(hold));
        }
        if (firstFound.size() >= capacity) {
            return true;
        }
        firstFound.put(jobId, now);
        return false;
    }

    /** The jobs were placed: nothing more to remember of them. */
    public synchronized void placed(Collection<UUID> jobIds) {
        if (!firstFound.isEmpty()) {
            jobIds.forEach(firstFound::remove);
        }
    }

    /** How many jobs are remembered. */
    synchronized int remembered() {
        return firstFound.size();
    }

    private void forgetOlderThan(Instant limit) {
        Iterator<Map.Entry<UUID, Instant>> oldest = firstFound.entrySet().iterator();
        while (oldest.hasNext() && oldest.next().getValue().isBefore(limit)) {
            oldest.remove();
        }
    }
}
