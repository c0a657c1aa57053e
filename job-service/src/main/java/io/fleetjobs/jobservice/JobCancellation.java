package io.fleetjobs.jobservice;

import io.fleetjobs.jobservice.api.ApiException;
import io.fleetjobs.store.JobLogContext;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Transition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** What a user asks of a job beyond reading it. */
@Component
public class JobCommands {
    private static final Logger log = LoggerFactory.getLogger(JobCommands.class);
    private final JobStore store;

    public JobCommands(JobStore store) {
        this.store = store;
    }

    /**
     * Cancels a job: at once when it is not on a machine; by request when it is (the agent stops the
     * attempt and confirms). Idempotent: a canceled job, or one already asked, stays as it is. A
     * job that has succeeded or failed cannot be canceled (409).
     */
    public JobRecord cancel(JobRecord job) {
        try (var ignored = JobLogContext.of(job.id(), job.attempt(), job.machineId())) {
            JobRecord canceled = cancelInContext(job);
            log.info("job {}: cancel asked in {}, now {}{}", job.id(), job.state(), canceled.state(),
                    canceled.cancelRequested() && !canceled.state().isTerminal() ? " (the agent stops the attempt)" : "");
            return canceled;
        }
    }

    private JobRecord cancelInContext(JobRecord job) {
        for (int tries = 0; tries < 20; tries++) {
            var result = switch (job.state()) {
                case CANCELED -> java.util.Optional.of(job);
                case SUCCEEDED, FAILED -> throw ApiException.conflict("job " + job.id() + " has already ended " + job.state());
                case SUBMITTED, QUEUED -> store.transition(job, Transition.cancel("canceled by user"));
                case SCHEDULED, RUNNING -> job.cancelRequested() ? java.util.Optional.of(job) : store.requestCancel(job);
            };
            if (result.isPresent()) {
                return result.get();
            }
            job = store.get(job.id()).orElseThrow();
        }
        throw new IllegalStateException("job " + job.id() + " kept changing; try again");
    }
}
