package io.fleetjobs.jobservice.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.jobservice.JobServiceTestBase;
import io.fleetjobs.testsupport.Api;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.test.context.TestPropertySource;

/**
 * With {@code jobs.admission.on-submit=false} a job is stored SUBMITTED and admitted from its event: the sweep is
 * pushed out of the test's reach, so only the listener can admit it.
 */
@TestPropertySource(properties = {"jobs.admission.on-submit=false", "jobs.admission.sweep-interval=1h"})
class AdmissionFromEventsTest extends JobServiceTestBase {
    @Autowired
    KafkaListenerEndpointRegistry listeners;

    @Test
    void aJobStoredSubmittedIsAdmittedFromItsEvent() {
        assertThat(listeners.getListenerContainer("admission")).as("the admission listener runs").isNotNull();
        Api carol = newTenant("carol-from-events");
        var created = carol.post("/api/v1/jobs", spec("from-events"));
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.field("state")).isEqualTo("SUBMITTED");
        String id = created.field("id");

        await().atMost(Duration.ofSeconds(20)).until(() -> "QUEUED".equals(carol.get("/api/v1/jobs/" + id).field("state")));
    }
}
