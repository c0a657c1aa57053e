package io.fleetjobs.agent;

import java.time.Duration;

/**
 * When an agent tries again after a heartbeat that the scheduler may never have heard (the connect or the read
 * timed out, the connection was refused or reset): sooner than the interval, so that a machine whose one heartbeat
 * was lost to a moment's congestion is heard again before its silence counts, but backing off (doubling from
 * {@link #FIRST}, with jitter) so that a fleet that failed together does not come back together. A heartbeat the
 * scheduler answered, even with a refusal (503: it was recorded, not answered), waits the interval as usual: trying
 * again sooner would only add to what made it refuse. Pure.
 */
final class HeartbeatRetry {
    /** The longest wait before the first retry; each failure in a row doubles it, up to the interval. */
    static final Duration FIRST = Duration.ofSeconds(1);

    private HeartbeatRetry() {
    }

    /**
     * @param failuresInARow heartbeats unheard in a row, this one included (1 or more)
     * @param interval       the interval the control plane said
     * @param unit           a random number in [0, 1): where in the upper half of the backoff the wait falls
     * @return how long to wait before the next heartbeat: within [ceiling / 2, ceiling), ceiling =
     *         min(interval, FIRST × 2^(failures - 1))
     */
    static Duration after(int failuresInARow, Duration interval, double unit) {
        if (failuresInARow < 1 || unit < 0 || unit >= 1) {
            throw new IllegalArgumentException("failures >= 1 and unit in [0, 1): " + failuresInARow + ", " + unit);
        }
        long first = FIRST.toMillis();
        int doublings = Math.min(failuresInARow - 1, 30);
        long ceiling = Math.min(interval.toMillis(), first << doublings);
        return Duration.ofMillis(ceiling / 2 + (long) (unit * (ceiling - ceiling / 2)));
    }
}
