package io.fleetjobs.model.logs;

import java.time.Duration;
import java.time.Instant;

/**
 * When a follow of a stream ends: never while its attempt runs; once it ended, when the reader has every byte up to
 * the end the agent marked, or, when nothing came for {@link LogLimits#AFTER_END_GRACE} (its machine is gone, or
 * keeps no output any more), with what arrived.
 */
public final class FollowEnd {
    private FollowEnd() {
    }

    public enum Decision {
        /** Keep reading. */
        GO_ON,
        /** Every byte up to the stream's end was sent. */
        COMPLETE,
        /** The attempt ended and its agent did not send the rest in time: what was sent is all there is. */
        GAVE_UP
    }

    /**
     * @param attemptEndedAt null while the attempt is live; once it ended, since when nothing came: the latest of its
     *                       end, the follow's start and the last bytes the reader was sent
     * @param streamEnd      the end offset the agent marked as the stream's last, or null when none came yet
     * @param position       how far the reader was sent
     */
    public static Decision decide(Instant attemptEndedAt, Long streamEnd, long position, Instant now, Duration grace) {
        if (streamEnd != null && position >= streamEnd) {
            return Decision.COMPLETE;
        }
        if (attemptEndedAt == null || streamEnd != null) {
            return Decision.GO_ON;
        }
        return now.isBefore(attemptEndedAt.plus(grace)) ? Decision.GO_ON : Decision.GAVE_UP;
    }
}
