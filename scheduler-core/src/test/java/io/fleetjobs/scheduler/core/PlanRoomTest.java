package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.MachineStatus;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Whether a plan leaves room in the fleet for any job at all: what keeps claims small while the fleet is full. */
class PlanRoomTest {
    @Test
    void aPlanThatTakesTheLastCoreOfEveryMachineLeavesNoRoom() {
        Snapshot fleet = Snapshots.of(aMachine("a").cores(2).build(), aMachine("b").cores(4).allocated(3_000, 0, 0).build());
        Plan plan = Snapshots.plan(fleet, aJob().cores(1).build(), aJob().cores(1).build(), aJob().cores(1).build(),
                aJob().cores(1).build());

        assertThat(plan.assignments()).hasSize(3);
        assertThat(plan.leavesRoomIn(fleet)).isFalse();
    }

    @Test
    void aMillicoreAndAMegabyteLeftAnywhereIsRoom() {
        Snapshot fleet = Snapshots.of(aMachine("a").cpuMillis(2_001).memoryMb(1_025).build());
        Plan plan = Snapshots.plan(fleet, aJob().cores(2).memoryMb(1_024).build());

        assertThat(plan.assignments()).hasSize(1);
        assertThat(plan.leavesRoomIn(fleet)).isTrue();
        assertThat(new Plan(List.of(new Assignment(UUID.randomUUID(), UUID.randomUUID(), "a", new Amounts(2_001, 1_024, 0))),
                Map.of()).leavesRoomIn(fleet)).as("cores left, but no memory").isFalse();
    }

    @Test
    void onlyReadyMachinesHaveRoom() {
        Snapshot fleet = Snapshots.of(aMachine("draining").cores(8).status(MachineStatus.DRAINING).build(),
                aMachine("suspect").cores(8).status(MachineStatus.SUSPECT).build());
        assertThat(new Plan(List.of(), Map.of()).leavesRoomIn(fleet)).isFalse();
        assertThat(new Plan(List.of(), Map.of()).leavesRoomIn(Snapshots.of(aMachine("ready").cores(8).build()))).isTrue();
    }
}
