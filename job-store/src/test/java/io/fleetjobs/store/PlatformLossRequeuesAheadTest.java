package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.RetryPolicy;
import io.fleetjobs.model.agent.AttemptReport;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Work the platform lost goes back to the queue ahead of the jobs of its priority that it did not fail, and a user's
 * retry keeps its place by submission. Before V31 the claim's order was priority then submission: in a full fleet a
 * job whose machine died waited behind every job submitted before it (77 s behind 382 in the long chaos run of 948f756).
 */
class PlatformLossRequeuesAheadTest {
    private static StoreFixture f;
    private static AttemptReports reports;
    private static PlacementStore placement;

    @BeforeAll
    static void start() {
        f = new StoreFixture(4);
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(7));
        placement = new PlacementStore(f.jdbc, f.jobs);
        new MachineStore(f.jdbc, f.jobs.clock()).register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void aJobWhoseMachineDiedIsClaimedBeforeTheJobsOfItsPrioritySubmittedBeforeIt() {
        JobRecord waiting1 = queued("waiting-1");
        JobRecord waiting2 = queued("waiting-2");
        JobRecord lost = place(queued("lost"));
        JobRecord userRetry = place(queued("user-retry"));
        // user-retry's first attempt is lost with the machine too; its second fails by the user's code
        assertThat(reports.endLiveAttempts("m", FailureReason.MACHINE_LOST)).isEqualTo(2);
        dueNow();
        userRetry = place(f.jobs.get(userRetry.id()).orElseThrow());
        reports.apply(report(userRetry, AttemptState.RUNNING, null));
        reports.apply(report(userRetry, AttemptState.FAILED, 75));
        assertThat(f.jobs.get(userRetry.id()).orElseThrow().state()).isEqualTo(JobState.QUEUED);
        dueNow();

        assertThat(ids(f.jobs.inTransaction(() -> placement.claim(10))))
                .as("the lost job first; the user's retry by submission, after the jobs submitted before it")
                .containsExactly(lost.id(), waiting1.id(), waiting2.id(), userRetry.id());
        assertThat(ids(f.jobs.inTransaction(() -> placement.claimAfter(10, JobSpec.DEFAULT_PRIORITY, true, lost.id()))))
                .as("resumed after the lost job: the rest of its priority")
                .containsExactly(waiting1.id(), waiting2.id(), userRetry.id());
        assertThat(ids(f.jobs.inTransaction(() -> placement.claimAfter(10, JobSpec.DEFAULT_PRIORITY, false, waiting1.id()))))
                .as("resumed after a job by submission: not the lost job again")
                .containsExactly(waiting2.id(), userRetry.id());
    }

    private static JobRecord queued(String name) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("x"),
                new RetryPolicy(3, List.of(75), 0, 0), null);
        JobRecord job = ((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job();
        return f.jobs.transition(job, Transition.admit()).orElseThrow();
    }

    /** Places a queued job on m as its next attempt. */
    private static JobRecord place(JobRecord queued) {
        f.jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(queued.id())).getFirst(), "m", 1000, 256, 0)), List.of(), Duration.ofSeconds(30)));
        return f.jobs.get(queued.id()).orElseThrow();
    }

    /** Every retry's backoff over. */
    private static void dueNow() {
        f.jdbc.sql("update jobs set not_before = now() - interval '1 second' where state = 'QUEUED'").update();
    }

    private static AttemptReport report(JobRecord job, AttemptState state, Integer exit) {
        Instant now = Instant.now();
        return new AttemptReport(job.id(), job.attempt(), f.epoch(job), "m", state, exit,
                state == AttemptState.FAILED ? FailureReason.EXIT_CODE : null, now, state.isLive() ? null : now, "", "");
    }

    private static List<UUID> ids(List<ClaimedJob> claimed) {
        return claimed.stream().map(ClaimedJob::id).toList();
    }
}
