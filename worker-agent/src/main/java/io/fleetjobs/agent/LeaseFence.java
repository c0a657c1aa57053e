package io.fleetjobs.agent;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's self-fencing, on a timer of its own: whatever a heartbeat call is doing (blocked on a socket the
 * network went silent on, say), at the lease's deadline every attempt gets SIGTERM and by the end of the kill grace
 * SIGKILL, as the {@link Fence} says. The timer wakes at the next change of the fence's state and at least every
 * {@link #TICK}, so that it sees a renewal's new deadline soon after it was made.
 */
final class LeaseFence implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaseFence.class);
    static final Duration TICK = Duration.ofMillis(250);

    /** What the fence does to the agent's attempts; each idempotent. */
    interface Attempts {
        /** SIGTERM to every attempt (reported LEASE_EXPIRED); returns how many it told. */
        int terminateAll();

        /** SIGKILL to every attempt still running; returns how many it killed. */
        int killAll();
    }

    private final MonotonicClock clock;
    private final Attempts attempts;
    private volatile Fence fence;
    private volatile boolean closed;
    private volatile Thread timer;
    private Fence.State acted = Fence.State.LIVE;

    LeaseFence(MonotonicClock clock, Attempts attempts) {
        this.clock = clock;
        this.attempts = attempts;
    }

    /** A join answered: the lease, with the TTL and grace it said, from when the join was sent. */
    void joined(long sentAt, Duration ttl, Duration grace) {
        fence = new Fence(sentAt, ttl, grace);
        wakeTimer();
    }

    /** A heartbeat sent at {@code sentAt} was answered, saying this TTL. */
    void renewed(long sentAt, Duration ttl) {
        Fence f = fence;
        fence = f == null ? null : f.renewed(sentAt, ttl);
        wakeTimer();
    }

    /** Whether the lease holds now: only then may an attempt be started. */
    boolean live() {
        Fence f = fence;
        return f != null && f.at(clock.nanos()) == Fence.State.LIVE;
    }

    Fence current() {
        return fence;
    }

    /** What the timer does each time it wakes; tests call it with a clock they step. @return the state seen */
    synchronized Fence.State check() {
        Fence f = fence;
        if (f == null) {
            return Fence.State.LIVE;
        }
        Fence.State state = f.at(clock.nanos());
        switch (state) {
            case LIVE -> acted = Fence.State.LIVE;
            case TERMINATE -> {
                int told = attempts.terminateAll();
                if (acted != Fence.State.TERMINATE && told > 0) {
                    log.warn("no heartbeat answered within the lease of {}: SIGTERM to {} attempts (self-fencing)",
                            f.ttl(), told);
                }
                acted = Fence.State.TERMINATE;
            }
            case KILL -> {
                attempts.terminateAll();
                int killed = attempts.killAll();
                if (acted != Fence.State.KILL && killed > 0) {
                    log.warn("the kill grace of {} after the lease's end is over: SIGKILL to {} attempts", f.grace(), killed);
                }
                acted = Fence.State.KILL;
            }
        }
        return state;
    }

    void start(String machineId) {
        timer = Thread.ofVirtual().name("lease-fence-" + machineId).start(this::run);
    }

    private void run() {
        while (!closed) {
            try {
                check();
            } catch (RuntimeException e) {
                log.error("the lease fence's check failed; checking again", e);
            }
            Fence f = fence;
            long sleep = TICK.toNanos();
            if (f != null) {
                long next = f.nanosToNextChange(clock.nanos());
                if (next > 0) {
                    sleep = Math.min(sleep, next);
                }
            }
            LockSupport.parkNanos(Math.max(sleep, 1_000_000));
        }
    }

    private void wakeTimer() {
        Thread t = timer;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public void close() {
        closed = true;
        wakeTimer();
    }
}
