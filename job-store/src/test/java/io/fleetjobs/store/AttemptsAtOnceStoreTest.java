package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.JobState;
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
 * The attempts a machine runs at once are counted where its room is: a placement past its limit is refused at the
 * commit under the machine's row lock (as one past its room is), an ended attempt gives its place back, and the repair
 * recounts them.
 */
class AttemptsAtOnceStoreTest {
    private static StoreFixture f;
    private static PlacementStore placement;
    private static MachineStore machines;
    private static AttemptReports reports;

    @BeforeAll
    static void start() {
        f = new StoreFixture(4);
        placement = new PlacementStore(f.jdbc, f.jobs);
        machines = new MachineStore(f.jdbc, f.jobs.clock());
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(3));
        machines.register("few", "eu", Map.of(), null, 4_000, 8_192, 0);
        machines.recordMaxLiveAttempts("few", 2);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static JobRecord queued(String name) {
        return f.jobs.transition(f.submitted(name), Transition.admit()).orElseThrow();
    }

    private static PlacementStore.CommitResult place(List<UUID> jobs) {
        return f.jobs.inTransaction(() -> {
            List<PlacementStore.NewAttempt> attempts = placement.reclaim(jobs).stream()
                    .map(c -> new PlacementStore.NewAttempt(c, "few", new Amounts(1, 1, 0), 0)).toList();
            return placement.commit(attempts, List.of(), Duration.ofSeconds(30));
        });
    }

    private static int counted() {
        return machines.get("few").orElseThrow().machine().liveAttempts();
    }

    @Test
    void aMachineTakesNoMoreThanItsLimitGivesBackWhatEndsAndIsRecounted() {
        JobRecord a = queued("a");
        JobRecord b = queued("b");
        JobRecord c = queued("c");

        PlacementStore.CommitResult result = place(List.of(a.id(), b.id(), c.id()));

        assertThat(result.scheduled()).hasSize(2);
        assertThat(result.conflicts()).containsExactly(c.id());
        assertThat(counted()).isEqualTo(2);
        assertThat(machines.get("few").orElseThrow().machine().freeAttempts()).isZero();

        Instant now = f.jobs.clock().instant();
        reports.applyAll(List.of(new AttemptReport(a.id(), 1, f.epoch(a.id(), 1), "few", AttemptState.SUCCEEDED, 0, null,
                now, now, "", "")));
        assertThat(f.jobs.get(a.id()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(counted()).as("an ended attempt gives its place back").isEqualTo(1);
        assertThat(place(List.of(c.id())).scheduled()).hasSize(1);
        assertThat(counted()).isEqualTo(2);

        f.jdbc.sql("update machines set live_attempts = 0 where id = 'few'").update();
        RepairStore repair = new RepairStore(f.jdbc);
        assertThat(repair.allocationsDrifted()).isTrue();
        f.jobs.inTransaction(() -> repair.repairAllocations(f.jobs.clock().instant()));
        assertThat(counted()).as("recounted from the attempts that hold room").isEqualTo(2);
    }
}
