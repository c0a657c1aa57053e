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

    /**
     * The record headers the relay publishes beside the event: its head (machine and attempt of its data only) and
     * its tenant, so that a consumer that sees every event and acts on few reads a few short headers, never the
     * JSON (the scheduler's wake-ups and the webhooks' fan-out parsed every event of every job: a tenth of their
     * services' time in W1). Values are strings; absent ones are not sent.
     */
    public static final class Headers {
        public static final String SCHEMA = "fj-schema";
        public static final String TYPE = "fj-type";
        public static final String TENANT = "fj-tenant";
        public static final String FROM = "fj-from";
        public static final String TO = "fj-to";
        public static final String MACHINE = "fj-machine";
        public static final String ATTEMPT = "fj-attempt";
        private static final String MACHINE_DATA = "machineId";
        private static final String ATTEMPT_DATA = "attempt";

        private Headers() {
        }

        /** The headers of {@code event}, in a stable order. */
        public static Map<String, String> of(JobEvent event) {
            Map<String, String> headers = new java.util.LinkedHashMap<>();
            headers.put(SCHEMA, Integer.toString(event.schemaVersion()));
            headers.put(TYPE, event.type().name());
            if (event.tenantId() != null) {
                headers.put(TENANT, event.tenantId().toString());
            }
            if (event.from() != null) {
                headers.put(FROM, event.from().name());
            }
            if (event.to() != null) {
                headers.put(TO, event.to().name());
            }
            if (event.data().get(MACHINE_DATA) != null) {
                headers.put(MACHINE, event.data().get(MACHINE_DATA));
            }
            if (event.data().get(ATTEMPT_DATA) != null) {
                headers.put(ATTEMPT, event.data().get(ATTEMPT_DATA));
            }
            return headers;
        }

        /**
         * The head of the event of job {@code jobId} whose record has these headers ({@code header}: a header's value
         * by name, null when absent); null when the record has none (published before the relay set them).
         *
         * @throws IllegalArgumentException when a header is not one of a job event
         */
        public static Head head(UUID jobId, java.util.function.Function<String, String> header) {
            String schema = header.apply(SCHEMA);
            String type = header.apply(TYPE);
            if (schema == null || type == null) {
                return null;
            }
            String from = header.apply(FROM);
            String to = header.apply(TO);
            String machine = header.apply(MACHINE);
            String attempt = header.apply(ATTEMPT);
            Map<String, String> data = new java.util.HashMap<>(2);
            if (machine != null) {
                data.put(MACHINE_DATA, machine);
            }
            if (attempt != null) {
                data.put(ATTEMPT_DATA, attempt);
            }
            return new Head(Integer.parseInt(schema), JobEventType.valueOf(type), jobId,
                    from == null ? null : JobState.valueOf(from), to == null ? null : JobState.valueOf(to),
                    data.isEmpty() ? null : data);
        }

        /** The tenant the headers name; null when they name none (published before the relay set them). */
        public static UUID tenant(java.util.function.Function<String, String> header) {
            String tenant = header.apply(TENANT);
            return tenant == null ? null : UUID.fromString(tenant);
        }
    }
}
