package io.fleetjobs.jobservice;

import io.fleetjobs.model.CancelRule;
import io.fleetjobs.store.JobLogContext;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Transition;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** A user's cancel of a job: {@link CancelRule} decides, this writes what it decided. */
@Component
public class JobCancellation {
    private static final Logger log = LoggerFactory.getLogger(JobCancellation.class);
    private final JobStore store;

    public JobCancellation(JobStore store) {
        this.store = store;
    }

    /** What a cancel came to: the job as it is after it, or a refusal and why. */
    public sealed interface Result {
        record Accepted(JobRecord job) implements Result {
        }

        record Refused(JobRecord job, String reason) implements Result {
        }
    }

    /**
     * Cancels a job: at once when it is not on a machine; by request when it is (the agent stops the
     * attempt and confirms). Idempotent: a canceled job, or one already asked, stays as it is. A
     * job that has succeeded or failed is refused.
     */
    public Result cancel(JobRecord job) {
        try (var ignored = JobLogContext.of(job.id(), job.attempt(), job.machineId())) {
            Result result = cancelInContext(job);
            if (result instanceof Result.Accepted(JobRecord canceled)) {
                log.info("job {}: cancel asked in {}, now {}{}", job.id(), job.state(), canceled.state(),
                        canceled.cancelRequested() && !canceled.state().isTerminal() ? " (the agent stops the attempt)" : "");
            }
            return result;
        }
    }

    private Result cancelInContext(JobRecord job) {
        // a guarded write that lost to another writer reads the job again and decides anew
        for (int tries = 0; tries < 20; tries++) {
            Optional<Result> result = switch (CancelRule.decide(job.state(), job.cancelRequested())) {
                case CancelRule.Decision.Refused refused -> Optional.of(new Result.Refused(job, "job " + job.id() + " "
                        + refused.reason()));
                case CancelRule.Decision.AlreadyAsked already -> Optional.of(new Result.Accepted(job));
                case CancelRule.Decision.CancelNow now ->
                        store.transition(job, Transition.cancel("canceled by user")).map(Result.Accepted::new);
                case CancelRule.Decision.RequestStop stop -> store.requestCancel(job).map(Result.Accepted::new);
            };
            if (result.isPresent()) {
                return result.get();
            }
            job = store.get(job.id()).orElseThrow();
        }
        throw new IllegalStateException("job " + job.id() + " kept changing; try again");
    }
}
