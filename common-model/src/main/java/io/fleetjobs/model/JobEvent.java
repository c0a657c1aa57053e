package io.fleetjobs.model;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * What {@code jobs.events} carries: one record per committed change of a job row, keyed by job id.
 * Consumers dedupe by {@link #eventId()}; {@link #jobVersion()} is the row's version after the change,
 * so a consumer can also tell an old event from a new one.
 *
 * @param schemaVersion bumped when a field changes meaning; consumers skip versions they do not know
 * @param data extra facts of the change (attempt number, machine, exit code), string-valued
 */
public record JobEvent(
        UUID eventId,
        int schemaVersion,
        JobEventType type,
        UUID jobId,
        UUID tenantId,
        long jobVersion,
        Instant at,
        JobState from,
        JobState to,
        String reason,
        Map<String, String> data) {

    public static final int SCHEMA_VERSION = 1;
    public static final String TOPIC = "jobs.events";

    public JobEvent {
        data = Copies.map(data);
    }

    /**
     * The fields of an event that decide what a consumer does with it, read alone by consumers that
     * see every event of every job and act on few (admission, the scheduler's wake-ups): skipping the
     * ids, times and reason they do not need took most of the cost of reading each event.
     *
     * @param data null when the event has none
     */
    public record Head(int schemaVersion, JobEventType type, UUID jobId, JobState from, JobState to,
            Map<String, String> data) {
    }
}
