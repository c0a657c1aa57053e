package io.fleetjobs.agent;

import java.time.Duration;

/**
 * How long a heartbeat may be held and how long the agent waits for its answer, so that every request gives up
 * (connect and read together) before the lease it would renew runs out: a heartbeat answered after the lease's end
 * renews nothing (the lease counts from the send), so waiting longer for it only delays the next one. Pure.
 *
 * @param hold        what the heartbeat asks the scheduler to hold it at most ({@code Heartbeat.waitMs})
 * @param readTimeout how long the agent waits for the answer once connected
 */
record HeartbeatTiming(Duration hold, Duration readTimeout) {
    /** Time for the scheduler's own work on a heartbeat (its reports written, the diff read) beyond the hold. */
    static final Duration SLACK = Duration.ofSeconds(2);
    /** Kept between a request's longest life and the lease's end: a request that gives up still has time to retry. */
    static final Duration SPARE = Duration.ofMillis(250);

    /**
     * @param interval       the agent's heartbeat interval, the hold it asks for when the lease allows
     * @param leaseTtl       the lease TTL the scheduler said
     * @param connectTimeout the HTTP client's connect timeout
     */
    static HeartbeatTiming of(Duration interval, Duration leaseTtl, Duration connectTimeout) {
        Duration budget = leaseTtl.minus(connectTimeout).minus(SPARE);
        if (!budget.isPositive()) {
            throw new IllegalStateException("the lease TTL the scheduler says (" + leaseTtl + ") leaves no time for a "
                    + "heartbeat after the connect timeout (" + connectTimeout + "); raise jobs.agent.lease-ttl");
        }
        Duration read = min(interval.plus(SLACK), budget);
        Duration hold = min(interval, read.minus(min(SLACK, read.dividedBy(2))));
        return new HeartbeatTiming(hold, read);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
