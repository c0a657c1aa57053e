package io.fleetjobs.store;

import java.time.Instant;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Retention, one bounded batch per call, each in a transaction of its own: finished jobs past it with their
 * attempts, history and GPU holds (through the write door, {@link JobWrites#forgetFinished}), and the inbox's
 * marks of events processed before it. Safe on any number of reconciler replicas at once: each batch skips the
 * rows another holds.
 *
 * <p>An inbox mark older than the retention guards nothing any more: a redelivery that old (Kafka keeps days,
 * the retention is weeks) would also find its job gone or long past the change it carried, and every consumer's
 * effect is a guarded change that a stale event cannot make again.
 */
public final class RetentionStore {
    private final JdbcClient jdbc;
    private final JobStore jobs;

    public RetentionStore(JdbcClient jdbc, JobStore jobs) {
        this.jdbc = jdbc;
        this.jobs = jobs;
    }

    /** What one batch of finished jobs took with it. */
    public record Deleted(int jobs, int attempts, int history, int gpuHolds) {
    }

    /** Deletes up to {@code limit} jobs that finished before {@code before}, oldest first, each with all it has. */
    public Deleted deleteFinishedJobs(Instant before, int limit) {
        JobWrites.Forgotten f = jobs.inTransaction(() -> jobs.writes().forgetFinished(before, limit));
        return new Deleted(f.jobs(), f.attempts(), f.history(), f.gpuHolds());
    }

    /** Deletes up to {@code limit} marks of events processed before {@code before}; how many it deleted. */
    public int deleteProcessedEvents(Instant before, int limit) {
        return jobs.inTransaction(() -> jdbc.sql("""
                        delete from processed_events p using (
                            select consumer, event_id from processed_events where processed_at < :before
                            limit :limit for update skip locked) d
                        where p.consumer = d.consumer and p.event_id = d.event_id""")
                .param("before", JobRows.ts(before)).param("limit", limit)
                .update());
    }
}
