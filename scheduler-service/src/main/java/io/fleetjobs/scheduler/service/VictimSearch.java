package io.fleetjobs.scheduler.service;

import java.time.Duration;
import java.time.Instant;

/**
 * When preemption reads the live attempts it might end. The read walks every live attempt of the fleet (84 ms a
 * call with 6,000 of them, a quarter of PostgreSQL's time in a W1 profile), and a full fleet of equal priorities
 * offers no victim to any waiting job, round after round. So once a read found no preemptible attempt below a
 * priority, jobs of that priority or lower do not read again for {@code quiet} (the scheduler's retry-no-room: as
 * long as a job without room may wait to be looked at again); a job of higher priority reads at once. Pure: the
 * caller says when.
 */
final class VictimSearch {
    private final Duration quiet;
    /** No preemptible attempt below this priority was found at the last read (Integer.MIN_VALUE: none recorded). */
    private int nothingBelow = Integer.MIN_VALUE;
    private Instant until = Instant.MIN;

    VictimSearch(Duration quiet) {
        this.quiet = quiet;
    }

    /** Whether a job of {@code priority} should read the candidates now. */
    synchronized boolean worthReading(int priority, Instant now) {
        return priority > nothingBelow || !now.isBefore(until);
    }

    /** What a read for {@code priority} found: whether any attempt below it may be preempted. */
    synchronized void found(int priority, boolean anyPreemptible, Instant now) {
        if (anyPreemptible) {
            nothingBelow = Integer.MIN_VALUE; // victims below this priority may lie below the one thought empty too
        } else if (priority >= nothingBelow || !now.isBefore(until)) {
            nothingBelow = priority;
            until = now.plus(quiet);
        }
    }
}
