package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The wake-ups read an event's head from its record's headers, and its JSON only when it has none. */
class WakeUpsTest {
    private static final UUID JOB = UUID.fromString("0190c0de-0000-7000-8000-000000000002");
    private static final JobEvent PLACED = new JobEvent(UUID.randomUUID(), JobEvent.SCHEMA_VERSION,
            JobEventType.STATE_CHANGED, JOB, UUID.randomUUID(), 3, Instant.EPOCH, JobState.QUEUED, JobState.SCHEDULED,
            "placed", Map.of("machineId", "m-3", "attempt", "1"));
    private static final JobEvent.Head HEAD = new JobEvent.Head(1, JobEventType.STATE_CHANGED, JOB, JobState.QUEUED,
            JobState.SCHEDULED, Map.of("machineId", "m-3", "attempt", "1"));

    private static ConsumerRecord<String, String> record(String value, Map<String, String> headers) {
        ConsumerRecord<String, String> record = new ConsumerRecord<>(JobEvent.TOPIC, 0, 0, JOB.toString(), value);
        headers.forEach((name, text) -> record.headers().add(name, text.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    @Test
    void withHeadersTheValueIsNotRead() {
        assertThat(WakeUps.head(record("not json at all", JobEvent.Headers.of(PLACED)))).isEqualTo(HEAD);
    }

    @Test
    void withoutThemTheJsonIsReadAndWhatIsNeitherIsSkipped() {
        JobEvent.Head fromJson = WakeUps.head(record(Json.write(PLACED), Map.of()));
        assertThat(fromJson.type()).isEqualTo(JobEventType.STATE_CHANGED);
        assertThat(fromJson.to()).isEqualTo(JobState.SCHEDULED);
        assertThat(fromJson.data()).containsEntry("machineId", "m-3").containsEntry("attempt", "1");

        assertThat(WakeUps.head(record("not json at all", Map.of()))).isNull();
    }
}
