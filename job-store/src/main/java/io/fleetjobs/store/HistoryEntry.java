package io.fleetjobs.store;

import io.fleetjobs.model.JobState;
import java.time.Instant;

/** One committed change of a job: version {@code version} moved it {@code from → to}. */
public record HistoryEntry(long version, Instant at, JobState from, JobState to, String reason) {
}
