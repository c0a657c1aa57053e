package io.fleetjobs.jobservice.admission;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Admits jobs from their SUBMITTED events, a polled batch at a time in one transaction, where jobs are stored
 * SUBMITTED ({@code jobs.admission.on-submit=false}). Where they are admitted with their submit (the default) there
 * is no consumer at all: it would read every event of every job for none, and a job inserted SUBMITTED all the same
 * (by an older version, during a rolling upgrade) is admitted by {@link Admission#sweep}.
 */
@Component
@ConditionalOnProperty(name = "jobs.admission.on-submit", havingValue = "false")
class AdmissionListener {
    private static final Logger log = LoggerFactory.getLogger(AdmissionListener.class);

    private final JobStore store;

    AdmissionListener(JobStore store) {
        this.store = store;
    }

    @KafkaListener(id = "admission", topics = JobEvent.TOPIC, groupId = "job-service-admission", batch = "true")
    void onEvents(List<String> records) {
        List<UUID> submitted = new ArrayList<>();
        for (String json : records) {
            JobEvent.Head event;
            try {
                event = Json.read(json, JobEvent.Head.class);
            } catch (RuntimeException e) {
                log.warn("skipping a record of {} that is not a job event: {}", JobEvent.TOPIC, e.getMessage());
                continue;
            }
            if (event.schemaVersion() == JobEvent.SCHEMA_VERSION && event.type() == JobEventType.STATE_CHANGED
                    && event.to() == JobState.SUBMITTED) {
                submitted.add(event.jobId());
            }
        }
        store.admitAll(submitted);
    }
}
