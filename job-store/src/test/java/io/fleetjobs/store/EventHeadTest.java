package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What consumers of every event read of one ({@link JobEvent.Head}), from an event as the outbox publishes it. */
class EventHeadTest {
    @Test
    void readsTheKindJobStatesAndDataOfAPublishedEvent() {
        UUID job = UUID.randomUUID();
        JobEvent event = new JobEvent(UUID.randomUUID(), JobEvent.SCHEMA_VERSION, JobEventType.STATE_CHANGED, job,
                UUID.randomUUID(), 3, Instant.now(), JobState.QUEUED, JobState.SCHEDULED, "placed on m-1",
                Map.of("attempt", "1", "machineId", "m-1"));

        JobEvent.Head head = Json.read(Json.write(event), JobEvent.Head.class);

        assertThat(head).isEqualTo(new JobEvent.Head(JobEvent.SCHEMA_VERSION, JobEventType.STATE_CHANGED, job,
                JobState.QUEUED, JobState.SCHEDULED, Map.of("attempt", "1", "machineId", "m-1")));
    }

    @Test
    void anEventWithoutStatesOrDataReadsAsNulls() {
        UUID job = UUID.randomUUID();
        JobEvent.Head head = Json.read("{\"schemaVersion\":1,\"type\":\"CANCEL_REQUESTED\",\"jobId\":\"" + job + "\"}",
                JobEvent.Head.class);
        assertThat(head).isEqualTo(new JobEvent.Head(1, JobEventType.CANCEL_REQUESTED, job, null, null, null));
    }
}
