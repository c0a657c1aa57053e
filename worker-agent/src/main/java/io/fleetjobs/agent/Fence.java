package io.fleetjobs.agent;

import java.time.Duration;

/**
 * The agent's lease, as the rule that fences it: renewed only by a heartbeat answered, counted from when that
 * heartbeat was sent, on a {@link MonotonicClock}. Pure, so that every case is a row of a table.
 *
 * <pre>
 *   renewedAt ──── ttl ────► deadline ──── grace ────► killBy
 *      LIVE: start leases       TERMINATE: SIGTERM to      KILL: SIGKILL to whatever is left
 *                               every attempt, start nothing
 * </pre>
 *
 * <p>The scheduler records the heartbeat no earlier than it arrives, after it was sent, and the control plane
 * declares the machine lost only once its lost TTL has passed since then ({@code FencingBudget}): by then every
 * process of this agent is dead, whatever the network did.
 *
 * @param renewedAt when the heartbeat that last renewed the lease was sent (nanos of the monotonic clock)
 */
record Fence(long renewedAt, Duration ttl, Duration grace) {
    enum State { LIVE, TERMINATE, KILL }

    Fence {
        if (!ttl.isPositive() || grace.isNegative()) {
            throw new IllegalArgumentException("a lease TTL > 0 and a kill grace >= 0, not " + ttl + " and " + grace);
        }
    }

    State at(long now) {
        long since = now - renewedAt; // differences only: nanoTime may be negative, and wraps
        if (since < ttl.toNanos()) {
            return State.LIVE;
        }
        return since < ttl.toNanos() + grace.toNanos() ? State.TERMINATE : State.KILL;
    }

    /**
     * Renewed by the answer to a heartbeat sent at {@code sentAt}: never moved back by an answer to an older one.
     *
     * @param ttl the lease TTL the answer says
     */
    Fence renewed(long sentAt, Duration ttl) {
        return sentAt - renewedAt >= 0 ? new Fence(sentAt, ttl, grace) : this;
    }

    /** How long from {@code now} until the state next changes; 0 once it is {@link State#KILL}. */
    long nanosToNextChange(long now) {
        long since = now - renewedAt;
        if (since < ttl.toNanos()) {
            return ttl.toNanos() - since;
        }
        return Math.max(0, ttl.toNanos() + grace.toNanos() - since);
    }

    /**
     * Whether a lease the scheduler said may be started within {@code startWithinMs} of its answer to the heartbeat
     * sent at {@code sentAt} may still be started at {@code now}: counted from the send, which came before the answer,
     * so the agent gives up no later than the scheduler's deadline. No deadline said (an older scheduler): yes.
     */
    static boolean startable(Long startWithinMs, long sentAt, long now) {
        return startWithinMs == null || now - sentAt < Duration.ofMillis(startWithinMs).toNanos();
    }
}
