package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.UnplacedKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A machine runs at most so many attempts at once, however little each asks for: a tenant's flood of jobs of 0.001 CPU
 * and 1 MiB landed on one machine by the hundred (its agent ran out of heap), since nothing but CPU, memory and GPUs
 * was counted.
 */
class AttemptsAtOnceTest {

    @Test
    void aMachineTakesNoMoreAttemptsThanItRunsAtOnceAndTheRestAreToldWhy() {
        Snapshot snapshot = Snapshots.of(aMachine("small").cores(2).memoryMb(2048).attempts(3, 1).build());
        List<PendingJob> tiny = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            tiny.add(aJob().cpuMillis(1).memoryMb(1).order(i).build());
        }

        Plan plan = new PlacementEngine().plan(snapshot, tiny);

        assertThat(plan.assignments()).hasSize(2);
        assertThat(plan.unplaced()).hasSize(3);
        Unplaced waiting = plan.unplaced().get(tiny.get(4).jobId());
        assertThat(waiting.kind()).as("it passes as attempts end").isNotEqualTo(UnplacedKind.CAN_NEVER_FIT);
        assertThat(waiting.rejectedBy()).containsOnlyKeys("free-attempts");
        assertThat(waiting.reason()).contains("1 runs as many attempts at once as it takes");
    }

    @Test
    void theNextMachineTakesWhatAFullOneCannot() {
        Snapshot snapshot = Snapshots.of(aMachine("a").cores(2).attempts(1, 1).build(), aMachine("b").cores(2).attempts(2, 0).build());
        List<PendingJob> jobs = List.of(aJob().cpuMillis(10).memoryMb(1).order(0).build(),
                aJob().cpuMillis(10).memoryMb(1).order(1).build(), aJob().cpuMillis(10).memoryMb(1).order(2).build());

        Plan plan = new PlacementEngine().plan(snapshot, jobs);

        assertThat(plan.assignments()).extracting(Assignment::machineId).containsExactly("b", "b");
        assertThat(plan.unplaced()).containsOnlyKeys(jobs.get(2).jobId());
    }

    @Test
    void aPreemptorForAMachineFullOfAttemptsEndsOneEvenWhereItsRoomWouldDo() {
        UUID tenant = Jobs.TENANT_A;
        List<RunningAttempt> running = List.of(
                new RunningAttempt(new UUID(1, 1), 1, tenant, 100, new Amounts(1, 1, 0), 10, true),
                new RunningAttempt(new UUID(1, 2), 1, tenant, 50, new Amounts(1, 1, 0), 20, true));
        Snapshot snapshot = new Snapshot(List.of(aMachine("m").cores(16).allocated(2, 2, 0).attempts(2, 2).build()),
                Map.of(), Machines.FRESH);
        PendingJob job = aJob().tenant(tenant).priority(500).cpuMillis(1000).memoryMb(64).build();

        Preemption p = Preemptions.plan(snapshot, job, Map.of("m", running), Preemptions.Scope.ANY_TENANT).orElseThrow();

        assertThat(p.victims()).extracting(RunningAttempt::jobId).containsExactly(new UUID(1, 2));
        Snapshot roomy = new Snapshot(List.of(aMachine("m").cores(16).allocated(2, 2, 0).attempts(3, 2).build()),
                Map.of(), Machines.FRESH);
        assertThat(Preemptions.plan(roomy, job, Map.of("m", running), Preemptions.Scope.ANY_TENANT))
                .as("with an attempt to spare it fits as it is").isEmpty();
    }
}
