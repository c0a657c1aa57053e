package io.fleetjobs.model;

import java.time.Duration;

/**
 * How often agents heartbeat and how long each answer's lease lasts, set by the control plane for the fleet's size,
 * so that all the scheduler's replicas together receive at most a configured rate of heartbeats a second (Nomad
 * sizes its clients' TTLs the same way): below {@code fleet = rate × minInterval} machines every agent beats every
 * {@code minInterval}; above, the interval grows (in whole seconds, so a fleet changing by a few machines does not
 * change it) and the lease with it, keeping the base's ratio (three heartbeats per lease by default: two may be
 * lost before the fence falls). The reconciler's suspect and lost TTLs grow by what the lease grew by
 * ({@link #extraOver}), so that the fence's inequality ({@link FencingBudget}) keeps the margin it has at the base.
 * Pure.
 *
 * @param interval how long an agent waits between heartbeats that have nothing new to say
 * @param leaseTtl how long an answer's lease lasts, counted from the heartbeat's send
 */
public record HeartbeatCadence(Duration interval, Duration leaseTtl) {
    /**
     * @param minInterval            the interval of a small fleet ({@code jobs.agent.heartbeat-interval})
     * @param baseLeaseTtl           the lease of a small fleet ({@code jobs.agent.lease-ttl})
     * @param maxHeartbeatsPerSecond what all the scheduler's replicas together should receive at most
     *                               ({@code jobs.agent.max-heartbeats-per-second})
     */
    public record Settings(Duration minInterval, Duration baseLeaseTtl, double maxHeartbeatsPerSecond) {
        public Settings {
            if (!minInterval.isPositive() || baseLeaseTtl.compareTo(minInterval) <= 0 || !(maxHeartbeatsPerSecond > 0)) {
                throw new IllegalArgumentException("a heartbeat cadence needs 0 < interval < lease TTL and a rate > 0: "
                        + minInterval + ", " + baseLeaseTtl + ", " + maxHeartbeatsPerSecond);
            }
        }

        /** The cadence of a fleet too small to need more than the minimum. */
        public HeartbeatCadence base() {
            return new HeartbeatCadence(minInterval, baseLeaseTtl);
        }
    }

    public HeartbeatCadence {
        if (!interval.isPositive() || leaseTtl.compareTo(interval) <= 0) {
            throw new IllegalArgumentException("a heartbeat cadence needs 0 < interval < lease TTL: " + interval + ", "
                    + leaseTtl);
        }
    }

    /** The cadence for a fleet of {@code machines} (those not lost: the ones that heartbeat). */
    public static HeartbeatCadence forFleet(long machines, Settings s) {
        double seconds = machines / s.maxHeartbeatsPerSecond();
        if (seconds <= s.minInterval().toMillis() / 1000.0) {
            return s.base();
        }
        Duration interval = Duration.ofSeconds((long) Math.ceil(seconds));
        // the base's ratio of lease to interval, in milliseconds
        long lease = Math.multiplyExact(interval.toMillis(), s.baseLeaseTtl().toMillis()) / s.minInterval().toMillis();
        return new HeartbeatCadence(interval, Duration.ofMillis(lease));
    }

    /**
     * How long after its last heartbeat a machine still takes new work: {@code baseFreshness}, the window of a fleet at
     * {@code minInterval}, grown by what the interval grew by, so that an idle machine that beats every interval is not
     * passed over between its heartbeats (at 10,000 machines they beat every 20 s; a fixed 10 s window would leave
     * about half of the fleet out of every plan).
     */
    public Duration freshness(Duration baseFreshness, Duration minInterval) {
        Duration extra = interval.minus(minInterval);
        return extra.isNegative() ? baseFreshness : baseFreshness.plus(extra);
    }

    /** How much longer this lease is than {@code baseLeaseTtl}: what the suspect and lost TTLs grow by. */
    public Duration extraOver(Duration baseLeaseTtl) {
        Duration extra = leaseTtl.minus(baseLeaseTtl);
        return extra.isNegative() ? Duration.ZERO : extra;
    }
}
