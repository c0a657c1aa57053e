package io.fleetjobs.jobservice.events;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;

/**
 * Up to which position every change is settled: committed and seen, or never to come. Positions are taken at insert
 * and seen at commit, so a transaction that commits after a later one leaves a hole for a moment; a transaction
 * that rolls back leaves one for good. The watermark stops at a hole until it has been open for {@code grace}, then
 * steps over it. Changes above the watermark are not delivered yet, so a stream never skips a change that commits
 * within the grace, whatever the order of commits.
 *
 * <p>Not thread-safe: one feed owns it.
 */
public final class Watermark {
    private final Duration grace;
    /** Where each hole seen above the watermark begins, and when it was first seen. */
    private final TreeMap<Long, Instant> holes = new TreeMap<>();
    private long settled;

    public Watermark(long settled, Duration grace) {
        this.settled = settled;
        this.grace = grace;
    }

    public long settled() {
        return settled;
    }

    /**
     * @param visible the positions above {@link #settled()} that can be read now, ascending
     * @return the new watermark: every visible position up to it may be delivered
     */
    public long advance(List<Long> visible, Instant now) {
        long previous = settled;
        for (long p : visible) {
            if (p > previous + 1) {
                holes.putIfAbsent(previous + 1, now);
            }
            previous = p;
        }
        for (long p : visible) {
            if (p == settled + 1) {
                settled = p;
                continue;
            }
            Instant since = holes.get(settled + 1);
            if (since == null || Duration.between(since, now).compareTo(grace) < 0) {
                break;
            }
            settled = p;
        }
        holes.headMap(settled, true).clear();
        return settled;
    }
}
