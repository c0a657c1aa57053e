package io.fleetjobs.workloads.packing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.workloads.packing.Cluster.Mix;
import io.fleetjobs.workloads.packing.Cluster.Task;
import java.util.List;
import java.util.Random;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

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
}
