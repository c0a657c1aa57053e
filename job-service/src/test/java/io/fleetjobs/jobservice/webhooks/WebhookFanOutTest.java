package io.fleetjobs.jobservice.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

/** The fan-out tells whose an event is from its record's headers, and from its JSON only when it has none. */
class WebhookFanOutTest {
    private static final UUID TENANT = UUID.fromString("0190c0de-0000-7000-8000-0000000000bb");
    private static final JobEvent EVENT = new JobEvent(UUID.randomUUID(), JobEvent.SCHEMA_VERSION,
            JobEventType.STATE_CHANGED, UUID.randomUUID(), TENANT, 2, Instant.EPOCH, JobState.SUBMITTED, JobState.QUEUED,
            "admitted", Map.of());

    private static ConsumerRecord<String, String> record(String value, Map<String, String> headers) {
        ConsumerRecord<String, String> record = new ConsumerRecord<>(JobEvent.TOPIC, 0, 0, EVENT.jobId().toString(), value);
        headers.forEach((name, text) -> record.headers().add(name, text.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    @Test
    void whoseComesFromTheHeadersWithoutReadingTheValue() {
        assertThat(WebhookFanOut.whose(record("not json at all", JobEvent.Headers.of(EVENT))))
                .isEqualTo(new WebhookFanOut.Whose(1, TENANT));
    }

    @Test
    void withoutHeadersTheJsonSays() {
        assertThat(WebhookFanOut.whose(record(Json.write(EVENT), Map.of()))).isEqualTo(new WebhookFanOut.Whose(1, TENANT));
        assertThatThrownBy(() -> WebhookFanOut.whose(record("not json at all", Map.of()))).isInstanceOf(RuntimeException.class);
    }
}
