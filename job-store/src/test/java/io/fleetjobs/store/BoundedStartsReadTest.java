package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.agent.AttemptReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A machine's read carries the executions of the attempts still to start up to {@link MachineStore#START_BYTES_PER_READ}
 * (in the order they were placed, the first always): a tenant's jobs with specs of nearly a MiB each, a thousandth of
 * a core apiece, had every heartbeat of their machine read and answer all of them, and the scheduler ran out of memory.
 */
class BoundedStartsReadTest {
    private static StoreFixture f;
    private static MachineStore machines;
    private static PlacementStore placement;
    private static AttemptReports reports;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
        machines = new MachineStore(f.jdbc, f.jobs.clock());
        placement = new PlacementStore(f.jdbc, f.jobs);
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(3));
        machines.register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    /** A job whose execution is about 400 KB of environment, placed on m. */
    private static JobRecord placedBig(int n) {
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < 7; i++) {
            env.put("V" + i, Integer.toString(n).repeat(60_000 / Integer.toString(n).length()));
        }
        JobSpec spec = new JobSpec("big-" + n, null, null, Resources.of(1, 256), null,
                new Execution(List.of("true"), env, null), null, null);
        JobRecord job = ((Submission.Accepted) f.jobs.submit(f.tenant, spec, null)).job();
        JobRecord queued = f.jobs.transition(job, Transition.admit()).orElseThrow();
        f.jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(queued.id())).getFirst(), "m", 1000, 256, 0)), List.of(), Duration.ofMinutes(5)));
        return f.jobs.get(job.id()).orElseThrow();
    }

    @Test
    void aReadCarriesTheStartsWithinItsBudgetAndTheNextReadTheRest() {
        List<JobRecord> jobs = new ArrayList<>();
        for (int n = 1; n <= 5; n++) {
            jobs.add(placedBig(n));
        }
        List<AssignedAttempt> first = machines.liveAttempts("m");
        assertThat(first).hasSize(5);
        // 0, ~420 KB and ~840 KB of executions before the first three: under the MiB; ~1.26 MB before the fourth
        assertThat(first).extracting(AssignedAttempt::startsLater).containsExactly(false, false, false, true, true);
        assertThat(first.getFirst().execution().env().get("V0")).startsWith("111");

        // the agent starts those three and says so: the next read carries the other two
        for (JobRecord job : jobs.subList(0, 3)) {
            assertThat(reports.apply(new AttemptReport(job.id(), 1, f.epoch(job), "m", AttemptState.RUNNING, null, null,
                    f.jobs.clock().instant(), null, null, null))).isEqualTo(AttemptReports.Outcome.APPLIED);
        }
        List<AssignedAttempt> next = machines.liveAttempts("m");
        assertThat(next).filteredOn(a -> a.state() == AttemptState.SCHEDULED)
                .extracting(AssignedAttempt::startsLater).containsExactly(false, false);
        assertThat(next).filteredOn(a -> a.state() == AttemptState.RUNNING).extracting(AssignedAttempt::execution)
                .containsOnlyNulls();
    }
}
