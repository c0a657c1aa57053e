package io.fleetjobs.scheduler.core;

import java.util.Objects;
import java.util.UUID;

/**
 * Where a job stands in the claim's order: priority, highest first; then work the platform lost, requeued ahead of
 * the jobs it did not fail ({@code ahead}); then id as PostgreSQL orders uuids (unsigned, most significant half
 * first). This is the order of the claim index.
 */
public record QueuePosition(int priority, boolean ahead, UUID jobId) implements Comparable<QueuePosition> {

    public QueuePosition {
        Objects.requireNonNull(jobId, "jobId");
    }

    /** A job queued by submission. */
    public QueuePosition(int priority, UUID jobId) {
        this(priority, false, jobId);
    }

    /** Negative when this job is claimed before {@code other}. */
    @Override
    public int compareTo(QueuePosition other) {
        int byPriority = Integer.compare(other.priority, priority);
        if (byPriority != 0) {
            return byPriority;
        }
        int byAhead = Boolean.compare(other.ahead, ahead);
        if (byAhead != 0) {
            return byAhead;
        }
        int high = Long.compareUnsigned(jobId.getMostSignificantBits(), other.jobId.getMostSignificantBits());
        return high != 0 ? high : Long.compareUnsigned(jobId.getLeastSignificantBits(), other.jobId.getLeastSignificantBits());
    }
}
