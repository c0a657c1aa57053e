package io.fleetjobs.model.logs;

import java.time.Duration;

/**
 * The bounds of live logs, one place: what an agent pushes at a time and how often, what the control plane stores of
 * a followed stream, and how long a follow and its chunks last. Memory and PostgreSQL hold at most
 * {@link #STORED_PER_STREAM} per followed stream, and only while it is followed (then {@link #CHUNK_RETENTION} at
 * most): the whole output stays on the agent's disk, capped there per attempt.
 */
public final class LogLimits {
    /** The most bytes one push carries (64 KiB). */
    public static final int PUSH_MAX_BYTES = 64 * 1024;
    /** The shortest time between two pushes of one stream: at most 4 pushes, 256 KiB, a second. */
    public static final Duration PUSH_EVERY = Duration.ofMillis(250);
    /** The most bytes of one stream kept in the database; older chunks go first (8 MiB). */
    public static final long STORED_PER_STREAM = 8L * 1024 * 1024;
    /**
     * The furthest offset a push may start at (1 PiB): far past any stream's length, and far enough from
     * {@code Long.MAX_VALUE} that an offset plus a push's bytes never wraps round (in Java, or as bigint in PostgreSQL).
     */
    public static final long MAX_OFFSET = 1L << 50;
    /** Where a follow starts by default: the last 64 KiB, as {@code tail -f} shows the last lines first. */
    public static final long DEFAULT_FROM = -64L * 1024;
    /** How long a follow lasts unless its reader renews it. */
    public static final Duration FOLLOW_TTL = Duration.ofSeconds(20);
    /** How often an open follow renews itself (well within {@link #FOLLOW_TTL}). */
    public static final Duration FOLLOW_RENEW_EVERY = Duration.ofSeconds(5);
    /**
     * How long after its attempt ended a follow waits for the rest of the output: past it (the machine is gone, or
     * keeps no file), the stream ends with what arrived; the last 64 KiB stay readable as the attempt's tail.
     */
    public static final Duration AFTER_END_GRACE = Duration.ofSeconds(10);
    /** How long chunks are kept at most, followed or not. */
    public static final Duration CHUNK_RETENTION = Duration.ofHours(24);
    /** How long chunks of a stream no one follows any more are kept (a reader reconnecting finds them). */
    public static final Duration UNFOLLOWED_RETENTION = Duration.ofMinutes(2);

    private LogLimits() {
    }
}
