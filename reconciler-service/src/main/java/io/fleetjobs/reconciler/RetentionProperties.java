package io.fleetjobs.reconciler;

import io.fleetjobs.reconciler.domain.Retention;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code jobs.retention.*}: how long finished jobs, their attempts and history, and processed-event marks are kept.
 *
 * @param finishedJobs a job that finished (SUCCEEDED, FAILED, CANCELED) this long ago is deleted; default 30 days
 * @param batchSize jobs (or event marks) deleted per transaction; default 500
 * @param maxBatches batches per run at most; default 20
 * @param interval how often the retention sweep runs; default one minute
 */
@ConfigurationProperties("jobs.retention")
public record RetentionProperties(Duration finishedJobs, Integer batchSize, Integer maxBatches, Duration interval) {
    public Retention retention() {
        return new Retention(finishedJobs == null ? Retention.DEFAULT_KEEP : finishedJobs,
                batchSize == null ? 500 : batchSize, maxBatches == null ? 20 : maxBatches,
                interval == null ? Duration.ofMinutes(1) : interval);
    }
}
