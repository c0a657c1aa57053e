package io.fleetjobs.store;

import io.fleetjobs.model.JobState;
import java.time.Instant;
import java.util.UUID;

/**
 * One committed change of a job as a live stream carries it: {@code position} orders all changes of all jobs (it is
 * the stream's event id), {@code version} the changes of one job.
 */
public record FeedEvent(long position, UUID jobId, UUID tenantId, long version, Instant at, JobState from, JobState to,
        String reason) {
}
