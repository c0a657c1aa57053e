package io.fleetjobs.jobservice.admission;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.Inbox;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Json;
import io.fleetjobs.store.Transition;
import java.time.Duration;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Moves submitted jobs to the queue: driven by the job's SUBMITTED event, with a periodic sweep of
 * jobs left SUBMITTED (lost events, a crash between commit and publish) as the safety net. Admitting
 * is idempotent: a job that has moved on is left alone.
 */
@Component
public class Admission {
    static final String CONSUMER = "admission";
    private static final Logger log = LoggerFactory.getLogger(Admission.class);

    private final JobStore store;
    private final Inbox inbox;
    private final Duration sweepGrace;

    public Admission(JobStore store, Inbox inbox,
            @Value("${jobs.admission.sweep-grace:2s}") Duration sweepGrace) {
        this.store = store;
        this.inbox = inbox;
        this.sweepGrace = sweepGrace;
    }

    @KafkaListener(id = "admission", topics = JobEvent.TOPIC, groupId = "job-service-admission")
    void onEvent(String json) {
        JobEvent event = Json.read(json, JobEvent.class);
        if (event.schemaVersion() != JobEvent.SCHEMA_VERSION
                || event.type() != JobEventType.STATE_CHANGED || event.to() != JobState.SUBMITTED) {
            return;
        }
        store.inTransaction(() -> {
            if (inbox.firstTime(CONSUMER, event.eventId())) {
                admit(event.jobId());
            }
            return null;
        });
    }

    /** Admits the job if it is still SUBMITTED; re-reads and decides again when another writer wins. */
    public void admit(UUID jobId) {
        try (var ignored = io.fleetjobs.store.JobLogContext.of(jobId)) {
            admitInContext(jobId);
        }
    }

    private void admitInContext(UUID jobId) {
        for (int tries = 0; tries < 10; tries++) {
            JobRecord job = store.get(jobId).orElse(null);
            if (job == null || job.state() != JobState.SUBMITTED) {
                return;
            }
            if (store.transition(job, Transition.admit()).isPresent()) {
                return;
            }
        }
        log.warn("job {} kept changing under admission; the sweep will look again", jobId);
    }

    /** Admits jobs that have waited in SUBMITTED longer than the grace. @return how many it looked at */
    @Scheduled(fixedDelayString = "${jobs.admission.sweep-interval:5s}", initialDelayString = "${jobs.admission.sweep-interval:5s}")
    public int sweep() {
        var stuck = store.stuckSubmitted(store.clock().instant().minus(sweepGrace), 1_000);
        stuck.forEach(job -> admit(job.id()));
        if (!stuck.isEmpty()) {
            log.info("admission sweep admitted {} jobs left in SUBMITTED", stuck.size());
        }
        return stuck.size();
    }
}
