package io.fleetjobs.reconciler.sweeps;

import io.fleetjobs.reconciler.domain.Retention;
import io.fleetjobs.store.RetentionStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what is past {@link Retention}: finished jobs with their attempts, history and GPU holds, then the
 * inbox's old marks, in bounded batches (each its own transaction, skipping rows another replica holds), once per
 * {@link Retention#every()}. Counted as {@code retention_deleted_jobs_total} and
 * {@code retention_deleted_processed_events_total}.
 */
public final class RetentionSweep implements Sweep {
    private static final Logger log = LoggerFactory.getLogger(RetentionSweep.class);

    private final RetentionStore store;
    private final Retention retention;
    private final Counter deletedJobs;
    private final Counter deletedEvents;
    private Instant nextRun = Instant.MIN;

    public RetentionSweep(RetentionStore store, Retention retention, MeterRegistry meters) {
        this.store = store;
        this.retention = retention;
        this.deletedJobs = Counter.builder("retention.deleted.jobs")
                .description("finished jobs deleted past their retention, with their attempts and history").register(meters);
        this.deletedEvents = Counter.builder("retention.deleted.processed.events")
                .description("marks of processed events deleted past the retention").register(meters);
    }

    @Override
    public String name() {
        return "retention";
    }

    @Override
    public int run(Instant now) {
        if (now.isBefore(nextRun)) {
            return 0;
        }
        nextRun = now.plus(retention.every());
        Instant cutoff = retention.cutoff(now);
        int jobs = 0;
        int batches = 0;
        RetentionStore.Deleted batch;
        do {
            batch = store.deleteFinishedJobs(cutoff, retention.batchSize());
            batches++;
            jobs += batch.jobs();
            deletedJobs.increment(batch.jobs());
        } while (retention.another(batches, batch.jobs()));
        int events = 0;
        int deleted;
        batches = 0;
        do {
            deleted = store.deleteProcessedEvents(cutoff, retention.batchSize());
            batches++;
            events += deleted;
            deletedEvents.increment(deleted);
        } while (retention.another(batches, deleted));
        if (jobs + events > 0) {
            log.info("retention: deleted {} jobs finished before {} and {} processed-event marks", jobs, cutoff, events);
        }
        return jobs + events;
    }
}
