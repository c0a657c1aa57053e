package io.fleetjobs.jobservice.admission;

import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Moves submitted jobs to the queue: from their SUBMITTED events where jobs are not admitted with their submit
 * ({@link AdmissionListener}), and by a periodic sweep of jobs left SUBMITTED (lost events, a crash between commit
 * and publish, a job inserted by an older version) as the safety net. Admitting is idempotent by the job's state (a
 * job that has moved on is left alone), so a redelivered event needs no inbox.
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
