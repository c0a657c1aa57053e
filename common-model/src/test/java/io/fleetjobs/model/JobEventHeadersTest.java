package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** An event's record headers carry its head and tenant, and read back as the JSON's head would. */
class JobEventHeadersTest {
    private static final UUID JOB = UUID.fromString("0190c0de-0000-7000-8000-000000000001");
    private static final UUID TENANT = UUID.fromString("0190c0de-0000-7000-8000-0000000000aa");

    private static JobEvent event(JobEventType type, JobState from, JobState to, Map<String, String> data) {
        return new JobEvent(UUID.randomUUID(), JobEvent.SCHEMA_VERSION, type, JOB, TENANT, 3, Instant.EPOCH, from, to,
                "why", data);
    }

    @Test
    void aPlacementsHeadersNameItsMachineAndAttemptAndNothingElseOfItsData() {
        JobEvent placed = event(JobEventType.STATE_CHANGED, JobState.QUEUED, JobState.SCHEDULED,
                Map.of("machineId", "m-7", "attempt", "2", "exitCode", "0"));

        Map<String, String> headers = JobEvent.Headers.of(placed);

        assertThat(headers).containsOnlyKeys(JobEvent.Headers.SCHEMA, JobEvent.Headers.TYPE, JobEvent.Headers.TENANT,
                JobEvent.Headers.FROM, JobEvent.Headers.TO, JobEvent.Headers.MACHINE, JobEvent.Headers.ATTEMPT);
        assertThat(JobEvent.Headers.head(JOB, headers::get)).isEqualTo(new JobEvent.Head(1, JobEventType.STATE_CHANGED,
                JOB, JobState.QUEUED, JobState.SCHEDULED, Map.of("machineId", "m-7", "attempt", "2")));
        assertThat(JobEvent.Headers.tenant(headers::get)).isEqualTo(TENANT);
    }

    @Test
    void aSubmitHasNoFromNorMachineAndACancelRequestNoTo() {
        Map<String, String> submitted = JobEvent.Headers.of(event(JobEventType.STATE_CHANGED, null, JobState.SUBMITTED, Map.of()));
        assertThat(JobEvent.Headers.head(JOB, submitted::get)).isEqualTo(new JobEvent.Head(1, JobEventType.STATE_CHANGED,
                JOB, null, JobState.SUBMITTED, null));

        Map<String, String> cancel = JobEvent.Headers.of(event(JobEventType.CANCEL_REQUESTED, JobState.RUNNING, null,
                Map.of("machineId", "m-1")));
        assertThat(JobEvent.Headers.head(JOB, cancel::get)).isEqualTo(new JobEvent.Head(1, JobEventType.CANCEL_REQUESTED,
                JOB, JobState.RUNNING, null, Map.of("machineId", "m-1")));
    }

    @Test
    void aRecordWithoutThemHasNoHeadThereAndOneWithForeignOnesIsRefused() {
        assertThat(JobEvent.Headers.head(JOB, name -> null)).as("published before the relay set headers").isNull();
        assertThat(JobEvent.Headers.tenant(name -> null)).isNull();

        Map<String, String> odd = Map.of(JobEvent.Headers.SCHEMA, "1", JobEvent.Headers.TYPE, "EXPLODED");
        assertThatThrownBy(() -> JobEvent.Headers.head(JOB, odd::get)).isInstanceOf(IllegalArgumentException.class);
    }
}
