package io.fleetjobs.workloads.packing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.workloads.packing.Cluster.Mix;
import io.fleetjobs.workloads.packing.Cluster.Task;
import java.util.List;
import java.util.Random;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The placement-quality benchmark's harness: seeded, bounded by its floor, every policy within the constraints. */
class PackingTest {
    private static final Mix SCARCE = new Mix("scarce", 0.3, 0.66, true);

    @Test
    void aSeedMakesTheSameClusterAndTasks() {
        List<Cluster.Machine> first = Cluster.machines(50, 0.2, new Random(3));
        List<Cluster.Machine> again = Cluster.machines(50, 0.2, new Random(3));
        assertThat(again).isEqualTo(first);
        assertThat(first).anyMatch(m -> m.model() == null).anyMatch(m -> m.gpus() == 8);
    }

    @Test
    void everyPolicyPlacesOnlyWhereATaskFitsAndNoneGoesBelowTheFloor() {
        Random random = new Random(11);
        List<Cluster.Machine> machines = Cluster.machines(120, 0.2, random);
        long gpus = machines.stream().mapToLong(Cluster.Machine::gpus).sum();
        List<Task> tasks = Cluster.tasks(SCARCE, gpus, random);
        assertThat(tasks).anyMatch(t -> t.models().size() == 1).anyMatch(t -> t.gpus() == 0);
        double floor = Packing.floor(machines, tasks);
        for (LongFunction<Baselines.Policy> policy : Packing.policies()) {
            // Fleet.place refuses a task where it does not fit: a policy that broke a constraint would throw here
            Packing.Result result = Packing.run(policy.apply(11), machines, tasks);
            assertThat(result.unallocatedShare()).as(result.policy()).isGreaterThanOrEqualTo(floor - 1e-9);
            assertThat(result.arrived()).isPositive();
        }
    }

    /** Platform and baseline: GPUs unallocated, tasks that found no room, whether the last task found room. */
    @ParameterizedTest(name = "platform {0} ({1}, last placed {2}) against {3} ({4}, last placed {5}): {6}")
    @CsvSource({
            "3, 1, true, 5, 2, true, FEWER",
            "0, 0, true, 0, 0, true, FEWER",                 // none left where the baseline leaves none
            "5, 1, false, 5, 1, false, AS_FEW_AS_POSSIBLE",  // both placed all but the last, which asked for more
            "5, 2, false, 5, 2, false, MORE_OR_AS_MANY",     // an earlier task found no room: it could have done better
            "5, 1, false, 5, 2, true, MORE_OR_AS_MANY",
            "7, 3, true, 5, 2, true, MORE_OR_AS_MANY"})
    void theVerdictCallsATieAsFewAsPossibleOnlyWhereBothPlacedEveryTaskButTheLast(long unallocated, int unplaced,
            boolean lastPlaced, long theirs, int theirUnplaced, boolean theirLastPlaced, Packing.Verdict expected) {
        Packing.Result platform = new Packing.Result("platform", unallocated, 0, unplaced, 100, lastPlaced);
        Packing.Result baseline = new Packing.Result("first-fit", theirs, 0, theirUnplaced, 100, theirLastPlaced);
        assertThat(Packing.Verdict.of(platform, baseline)).isEqualTo(expected);
    }
}
