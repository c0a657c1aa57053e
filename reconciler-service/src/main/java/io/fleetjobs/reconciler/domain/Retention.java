package io.fleetjobs.reconciler.domain;

import java.time.Duration;
import java.time.Instant;

/**
 * How long finished jobs (and the inbox's marks of processed events) are kept, and how the deletion is bounded:
 * what finished before {@code now - keep} is past retention; it goes {@code batchSize} jobs per transaction, at
 * most {@code maxBatches} batches per run, and runs at most once per {@code every}. A batch that came back full
 * means there may be more; a short one means the backlog is done. Live jobs are never past retention, however old.
 */
public record Retention(Duration keep, int batchSize, int maxBatches, Duration every) {
    public static final Duration DEFAULT_KEEP = Duration.ofDays(30);

    public Retention {
        if (keep == null || keep.isNegative() || keep.isZero()) {
            throw new IllegalArgumentException("jobs.retention.finished-jobs must be a positive duration: " + keep);
        }
        if (batchSize < 1 || batchSize > 10_000) {
            throw new IllegalArgumentException("jobs.retention.batch-size must be 1 to 10000: " + batchSize);
        }
        if (maxBatches < 1) {
            throw new IllegalArgumentException("jobs.retention.max-batches must be 1 or more: " + maxBatches);
        }
        if (every == null || every.isNegative()) {
            throw new IllegalArgumentException("jobs.retention.interval must be zero or more: " + every);
        }
    }

    /** What finished (or was processed) before this instant is past retention. */
    public Instant cutoff(Instant now) {
        return now.minus(keep);
    }

    /** Whether to run another batch after {@code batchesDone} batches, the last of which deleted {@code lastDeleted}. */
    public boolean another(int batchesDone, int lastDeleted) {
        return lastDeleted >= batchSize && batchesDone < maxBatches;
    }
}
