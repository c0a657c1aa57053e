package io.fleetjobs.jobservice.events;

/**
 * Where a live event stream starts: the rule of resuming and of the horizon, apart from any I/O.
 *
 * <pre>
 *   resumed (Last-Event-ID or ?since=N)   after N                  the client saw N and everything before it
 *     N + 1 &lt; oldest kept                 after oldest kept - 1    what lay between is gone (retention): say so
 *   not resumed, one job                  after 0                  the job's whole history, then live
 *   not resumed, a tenant                 after the feed's head    only what happens from now on
 * </pre>
 *
 * A resumed id beyond the head is kept as it is: another instance may have sent it, and this one will get there.
 */
public record EventCursor(long after, boolean horizonPassed) {
    public EventCursor {
        if (after < 0) {
            throw new IllegalArgumentException("a cursor is a position, never negative: " + after);
        }
    }

    /**
     * @param resumeAfter the last event id the client saw, or null
     * @param oneJob      a stream of one job (its history from the start) rather than a tenant's (from now)
     * @param oldestKept  the lowest position still stored
     * @param head        the position up to which the feed has delivered every change
     */
    public static EventCursor start(Long resumeAfter, boolean oneJob, long oldestKept, long head) {
        if (resumeAfter == null) {
            return new EventCursor(oneJob ? 0 : head, false);
        }
        if (resumeAfter + 1 < oldestKept) {
            return new EventCursor(oldestKept - 1, true);
        }
        return new EventCursor(resumeAfter, false);
    }

    /** A client's {@code Last-Event-ID} or {@code since}: a position, or {@code null} when it sent none. */
    public static Long parse(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        long n = Long.parseLong(value.strip()); // NumberFormatException: the caller names the field
        if (n < 0) {
            throw new NumberFormatException("negative: " + n);
        }
        return n;
    }
}
