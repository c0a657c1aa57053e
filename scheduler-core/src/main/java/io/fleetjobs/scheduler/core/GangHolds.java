package io.fleetjobs.scheduler.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * When a waiting gang holds the room it finds (docs/architecture.md, "Starvation, both ways"). A gang that has
 * waited {@code patience} since it was submitted is due: when it does not fit whole, the room its replicas found
 * stays taken for the rest of the plan, so that a stream of small jobs cannot starve it. Gangs hold only in the
 * first {@code hold} of every {@code hold + rest} of the clock, counted from the epoch, so that every scheduler
 * replica and worker agrees without a word, and every gang rests at the same time: in the rest, the jobs behind
 * the gangs take whatever room they fit, so that no job waits much more than {@code hold} for room a gang is
 * collecting. A rest of 0 never rests (the gang holds until it fits).
 */
public record GangHolds(Duration patience, Duration hold, Duration rest) {
    /** Due after 2 minutes; holds 10 minutes, rests 1. */
    public static final GangHolds DEFAULT = new GangHolds(Duration.ofMinutes(2), Duration.ofMinutes(10),
            Duration.ofMinutes(1));

    public GangHolds {
        Objects.requireNonNull(patience, "patience");
        Objects.requireNonNull(hold, "hold");
        Objects.requireNonNull(rest, "rest");
        if (patience.isNegative() || hold.isNegative() || hold.isZero() || rest.isNegative()) {
            throw new IllegalArgumentException("gang patience and rest must not be negative and the hold must be"
                    + " positive, were " + patience + ", " + hold + " and " + rest);
        }
    }

    /** Whether a gang submitted at {@code submitted} holds the room it finds in a plan made at {@code now}. */
    public boolean holds(Instant submitted, Instant now) {
        if (Duration.between(submitted, now).compareTo(patience) < 0) {
            return false;
        }
        return rest.isZero() || Math.floorMod(now.toEpochMilli(), hold.plus(rest).toMillis()) < hold.toMillis();
    }
}
