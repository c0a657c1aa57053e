package io.fleetjobs.store;

import java.util.List;

/**
 * The relay's rule for gaps between history positions, apart from any I/O: which of the positions a read found above
 * the cursor may be published now, in order, without ever passing one that will still become visible.
 *
 * <p>A position is taken when its row is inserted and becomes visible when its transaction commits, so a read may see
 * 7 and 9 while 8 is still being written: the relay stops before 8. 8 is passed only once it is certain never to come
 * (its transaction rolled back, or retention deleted it long ago): when a read saw a position above it, and every
 * transaction that was running when a snapshot was taken after that read has ended by a snapshot taken before a later
 * read that still lacks it. The transaction that holds 8 had started writing before 9 was taken (it wrote its job's
 * row first, and the sequence hands positions out in time order), so 9's commit, the first read and the snapshot after
 * it all came after its transaction id was given; once the oldest transaction still running is newer than every id of
 * that snapshot, 8's transaction has ended, and a read after that which lacks 8 lacks it for good.
 *
 * <pre>
 *   read sees cursor+1, cursor+2, …        publish them
 *   read sees a gap, no proof yet          stop before it; remember (highest seen, xmax of a snapshot after the read)
 *   later read, gap below highest seen,
 *     xmin of a snapshot before it ≥ xmax  pass the gap
 * </pre>
 *
 * One relay's own; not thread-safe.
 */
public final class EventGaps {
    /** The highest position seen by the read that found a gap; 0: no gap waiting for proof. */
    private long seenUpTo;
    /** The xmax of a snapshot taken after that read: transactions from it on started after it. */
    private long runningBelow;

    /**
     * @param cursor     every position up to here is published (or was never an event)
     * @param positions  the positions above the cursor the read found, ascending
     * @param xminBefore the oldest transaction still running when a snapshot was taken before the read
     * @return how many of {@code positions}, from the first, may be published now
     */
    public int publishable(long cursor, List<Long> positions, long xminBefore) {
        long expected = cursor + 1;
        int n = 0;
        for (long position : positions) {
            if (position != expected && !(position <= seenUpTo && xminBefore >= runningBelow)) {
                break;
            }
            expected = position + 1;
            n++;
        }
        return n;
    }

    /**
     * After a read of {@code positions} above {@code cursor} of which the first {@code passed} were published: when it
     * stopped at a gap, remember the proof ({@link #stoppedAt}); otherwise nothing.
     */
    public void afterRead(long cursor, List<Long> positions, int passed, long xmaxAfter) {
        if (passed < positions.size()) {
            stoppedAt(passed == 0 ? cursor + 1 : positions.get(passed - 1) + 1, positions.getLast(), xmaxAfter);
        }
    }

    /**
     * A read stopped at a gap: remember what proves it later, unless a proof already waits for a gap at or above this
     * one (a newer proof would take longer to hold).
     *
     * @param gapAt     the first missing position
     * @param highest   the highest position the read found
     * @param xmaxAfter the first transaction id not yet given when a snapshot was taken after the read
     */
    public void stoppedAt(long gapAt, long highest, long xmaxAfter) {
        if (gapAt > seenUpTo) {
            seenUpTo = highest;
            runningBelow = xmaxAfter;
        }
    }
}
