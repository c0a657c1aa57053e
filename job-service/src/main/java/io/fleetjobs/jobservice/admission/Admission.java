package io.fleetjobs.jobservice.admission;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Moves submitted jobs to the queue: driven by the jobs' SUBMITTED events, a polled batch at a time
 * in one transaction, with a periodic sweep of jobs left SUBMITTED (lost events, a crash between
 * commit and publish) as the safety net. Admitting is idempotent by the job's state (a job that has
 * moved on is left alone), so a redelivered event needs no inbox.
 */
@Component
public class Admission {
    private static final Logger log = LoggerFactory.getLogger(Admission.class);

    private final JobStore store;
    private final Duration sweepGrace;

    public Admission(JobStore store, @Value("${jobs.admission.sweep-grace:2s}") Duration sweepGrace) {
        this.store = store;
        this.sweepGrace = sweepGrace;
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

    /** Admits the job if it is still SUBMITTED. */
    public void admit(UUID jobId) {
        try (var ignored = io.fleetjobs.store.JobLogContext.of(jobId)) {
            store.admitAll(List.of(jobId));
        }
    }

    /** Admits jobs that have waited in SUBMITTED longer than the grace. @return how many it looked at */
    @Scheduled(fixedDelayString = "${jobs.admission.sweep-interval:5s}", initialDelayString = "${jobs.admission.sweep-interval:5s}")
    public int sweep() {
        var stuck = store.stuckSubmitted(store.clock().instant().minus(sweepGrace), 1_000);
        int admitted = store.admitAll(stuck.stream().map(JobRecord::id).toList());
        if (admitted > 0) {
            log.info("admission sweep admitted {} jobs left in SUBMITTED", admitted);
        }
        return stuck.size();
    }
}
