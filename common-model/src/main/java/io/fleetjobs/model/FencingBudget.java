package io.fleetjobs.model;

import java.time.Duration;

/**
 * Whether the control plane waits long enough before it runs a silent machine's jobs elsewhere: the fence holds by
 * construction only when
 *
 * <pre>
 *   lost TTL  &gt;  lease TTL + kill grace + longest heartbeat hold + clock-skew margin
 * </pre>
 *
 * <p>An agent's lease runs from when it sent the heartbeat that renewed it, which the scheduler records no earlier
 * than it arrives; the agent sends SIGTERM to every attempt at the lease's end and SIGKILL by the end of the kill
 * grace, on a monotonic clock of its own. The control plane declares the machine lost once the database's clock is
 * the lost TTL past that heartbeat. The longest hold is counted too (a lease renewed by a held reply must not
 * outlast the TTL because the reply was slow to come), and the margin covers what no clock here measures: a
 * monotonic clock's drift, the timer's wake-up, the heartbeat writer's flush, the database's clock read once per
 * sweep. Pure; each service that relies on it checks it when it starts ({@link #requireHolds()}).
 *
 * @param leaseTtl        {@code jobs.agent.lease-ttl}: told to agents at join and with every heartbeat reply
 * @param killGrace       {@code jobs.agent.kill-grace}: told to agents at join; SIGTERM to SIGKILL
 * @param longestHold     {@code jobs.agent.max-wait}: the longest the scheduler holds a heartbeat
 * @param clockSkewMargin {@code jobs.agent.clock-skew-margin}
 * @param lostAfter       {@code jobs.reconciler.lost-after}: a machine silent this long is lost, its jobs retried
 */
public record FencingBudget(Duration leaseTtl, Duration killGrace, Duration longestHold, Duration clockSkewMargin,
        Duration lostAfter) {
    public static final String LEASE_TTL = "jobs.agent.lease-ttl";
    public static final String KILL_GRACE = "jobs.agent.kill-grace";
    public static final String LONGEST_HOLD = "jobs.agent.max-wait";
    public static final String CLOCK_SKEW_MARGIN = "jobs.agent.clock-skew-margin";
    public static final String LOST_AFTER = "jobs.reconciler.lost-after";

    /** The defaults, which hold with a second to spare: 15 s &gt; 6 + 5 + 2 + 1 s. */
    public static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(6);
    public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(5);
    public static final Duration DEFAULT_LONGEST_HOLD = Duration.ofSeconds(2);
    public static final Duration DEFAULT_CLOCK_SKEW_MARGIN = Duration.ofSeconds(1);
    public static final Duration DEFAULT_LOST_AFTER = Duration.ofSeconds(15);

    public FencingBudget {
        for (Duration d : new Duration[] {leaseTtl, killGrace, longestHold, clockSkewMargin, lostAfter}) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException("every part of the fencing budget is a duration >= 0: " + d);
            }
        }
    }

    /** How long after its last heartbeat a cut-off machine may still run a process: the right-hand side. */
    public Duration fencedBy() {
        return leaseTtl.plus(killGrace).plus(longestHold).plus(clockSkewMargin);
    }

    /** By how much the lost TTL outlasts the fence; negative or zero when it does not. */
    public Duration margin() {
        return lostAfter.minus(fencedBy());
    }

    public boolean holds() {
        return margin().isPositive() && leaseTtl.isPositive();
    }

    /**
     * @return this budget, when it holds
     * @throws IllegalStateException naming the settings and the inequality, when it does not
     */
    public FencingBudget requireHolds() {
        if (!holds()) {
            throw new IllegalStateException("the fence does not hold: " + LOST_AFTER + " (" + lostAfter + ") must be longer than "
                    + LEASE_TTL + " (" + leaseTtl + ") + " + KILL_GRACE + " (" + killGrace + ") + " + LONGEST_HOLD + " ("
                    + longestHold + ") + " + CLOCK_SKEW_MARGIN + " (" + clockSkewMargin + ") = " + fencedBy()
                    + ", or a silent machine's jobs may run twice at once; raise " + LOST_AFTER + " or lower the others"
                    + " (the same values on scheduler-service and reconciler-service)");
        }
        return this;
    }

    @Override
    public String toString() {
        return LOST_AFTER + " " + lostAfter + " > " + LEASE_TTL + " " + leaseTtl + " + " + KILL_GRACE + " " + killGrace
                + " + " + LONGEST_HOLD + " " + longestHold + " + " + CLOCK_SKEW_MARGIN + " " + clockSkewMargin
                + " (margin " + margin() + ")";
    }
}
