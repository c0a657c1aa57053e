package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.Placement;
import io.fleetjobs.model.PlacementStrategy;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.UnplacedKind;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PlacementEngineTest {

    @Test
    void aCpuJobAvoidsGpuMachinesWhileACpuMachineFits() {
        Snapshot snapshot = Snapshots.of(
                aMachine("gpu").cores(64).memoryMb(524_288).withGpus(8, "H100").allocated(60_000, 500_000, 8).build(),
                aMachine("cpu").cores(64).memoryMb(262_144).build());
        PendingJob job = aJob().cores(2).memoryMb(4096).build();

        // the GPU machine is the fuller one, which bin-packing alone would choose
        assertThat(Snapshots.machinesOf(Snapshots.plan(snapshot, job))).containsEntry(job.jobId(), "cpu");
    }

    @Test
    void aCpuJobUsesAGpuMachineWhenNoCpuMachineFits() {
        Snapshot snapshot = Snapshots.of(
                aMachine("cpu").cores(4).build(),
                aMachine("gpu-idle").cores(64).memoryMb(524_288).withGpus(8, "H100").build(),
                aMachine("gpu-busy").cores(64).memoryMb(524_288).withGpus(8, "H100").allocated(8000, 64_000, 8).build());
        PendingJob job = aJob().cores(8).memoryMb(4096).build();

        assertThat(Snapshots.machinesOf(Snapshots.plan(snapshot, job))).containsEntry(job.jobId(), "gpu-busy");
    }

    @Test
    void binPackingFillsTheBusiestMachineThatFits() {
        Snapshot snapshot = Snapshots.of(
                aMachine("empty").cores(16).build(),
                aMachine("half").cores(16).allocated(8000, 32_768, 0).build(),
                aMachine("nearly-full").cores(16).allocated(15_000, 64_000, 0).build());
        PendingJob job = aJob().cores(2).memoryMb(1024).build();

        assertThat(Snapshots.machinesOf(Snapshots.plan(snapshot, job))).containsEntry(job.jobId(), "half");
    }

    @Test
    void spreadPicksTheEmptiestMachine() {
        Snapshot snapshot = Snapshots.of(
                aMachine("empty").cores(16).build(),
                aMachine("half").cores(16).allocated(8000, 0, 0).build());
        List<PendingJob> jobs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            jobs.add(aJob().cores(2).memoryMb(1024).strategy(PlacementStrategy.SPREAD).order(i).build());
        }

        Plan plan = new PlacementEngine().plan(snapshot, jobs);

        // "empty" stays the emptier until it holds 4 of the jobs (its CPU as busy as "half", plus some memory)
        assertThat(plan.assignments()).extracting(Assignment::machineId).containsExactly("empty", "empty", "empty", "empty");
        PendingJob fifth = aJob().cores(2).memoryMb(1024).strategy(PlacementStrategy.SPREAD).build();
        jobs.add(fifth);
        assertThat(new PlacementEngine().plan(snapshot, jobs).assignmentOf(fifth.jobId()).orElseThrow().machineId())
                .isEqualTo("half");
    }

    @Test
    void smallGpuJobsFillPartlyUsedGpuMachinesAndLeaveAWholeOneForABigJob() {
        Snapshot snapshot = Snapshots.of(
                aMachine("whole").cores(64).memoryMb(524_288).withGpus(8, "H100").build(),
                aMachine("partly").cores(64).memoryMb(524_288).withGpus(8, "H100").allocated(16_000, 128_000, 6).build());
        PendingJob small1 = aJob().cores(4).memoryMb(16_384).gpus(1, "H100").order(1).build();
        PendingJob small2 = aJob().cores(4).memoryMb(16_384).gpus(1, "H100").order(2).build();
        PendingJob big = aJob().cores(32).memoryMb(262_144).gpus(8, "H100").order(3).build();

        Plan plan = Snapshots.plan(snapshot, small1, small2, big);

        assertThat(Snapshots.machinesOf(plan)).containsExactlyInAnyOrderEntriesOf(Map.of(
                small1.jobId(), "partly", small2.jobId(), "partly", big.jobId(), "whole"));
    }

    @Test
    void eachPlacementTakesCapacityFromLaterJobsOfTheBatch() {
        Snapshot snapshot = Snapshots.of(aMachine("m1").cores(16).memoryMb(65_536).build());
        PendingJob first = aJob().cores(6).order(1).build();
        PendingJob second = aJob().cores(6).order(2).build();
        PendingJob third = aJob().cores(6).order(3).build();

        Plan plan = Snapshots.plan(snapshot, first, second, third);

        assertThat(plan.assignments()).extracting(Assignment::jobId).containsExactly(first.jobId(), second.jobId());
        assertThat(plan.unplaced()).containsOnlyKeys(third.jobId());
    }

    @Test
    void acceptsAnyOfTheAlternativeGpuTypes() {
        Snapshot snapshot = Snapshots.of(
                aMachine("l4").withGpus(4, "L4").build(),
                aMachine("a100").withGpus(8, "A100").build());
        PendingJob job = aJob().gpus(2, "A100", "H100").build();

        assertThat(Snapshots.machinesOf(Snapshots.plan(snapshot, job))).containsEntry(job.jobId(), "a100");
    }

    @Test
    void unhealthyMachinesTakeNothing() {
        Snapshot snapshot = Snapshots.of(
                aMachine("suspect").status(MachineStatus.SUSPECT).build(),
                aMachine("draining").status(MachineStatus.DRAINING).build(),
                aMachine("quiet").heartbeatAge(Duration.ofSeconds(31)).build(),
                aMachine("never").heartbeatAge(null).build(),
                aMachine("ok").cores(2).build());
        List<PendingJob> jobs = List.of(aJob().cores(2).build(), aJob().cores(2).build());

        Plan plan = new PlacementEngine().plan(snapshot, jobs);

        assertThat(plan.assignments()).extracting(Assignment::machineId).containsExactly("ok");
        assertThat(plan.unplaced()).hasSize(1);
    }

    @Test
    void higherPriorityGoesFirstEvenWhenYounger() {
        Snapshot snapshot = Snapshots.of(aMachine("m1").cores(4).build());
        PendingJob oldLow = aJob().cores(4).priority(100).order(1).build();
        PendingJob youngHigh = aJob().cores(4).priority(900).order(2).build();

        Plan plan = Snapshots.plan(snapshot, oldLow, youngHigh);

        assertThat(plan.assignments()).extracting(Assignment::jobId).containsExactly(youngHigh.jobId());
    }

    @Test
    void theTenantWithTheLowerDominantShareGoesFirst() {
        // A holds half the cluster's GPUs (its dominant share), B holds a quarter of its CPU
        TenantView a = new TenantView(Jobs.TENANT_A, 1, 0, 0, 4, null);
        TenantView b = new TenantView(Jobs.TENANT_B, 1, 16_000, 0, 0, null);
        Snapshot snapshot = Snapshots.of(List.of(
                aMachine("gpu").cores(32).memoryMb(262_144).withGpus(8, "A100").build(),
                aMachine("cpu").cores(32).memoryMb(262_144).allocated(30_000, 0, 0).build()), a, b);
        PendingJob fromA = aJob().tenant(Jobs.TENANT_A).cores(32).order(1).build();
        PendingJob fromB = aJob().tenant(Jobs.TENANT_B).cores(32).order(2).build();

        Plan plan = Snapshots.plan(snapshot, fromA, fromB);

        assertThat(plan.assignments()).extracting(Assignment::jobId).containsExactly(fromB.jobId());
    }

    @Test
    void aHeavierTenantMayHoldProportionallyMore() {
        // equal usage, but B weighs 2: its weighted share is half of A's
        TenantView a = new TenantView(Jobs.TENANT_A, 1, 8000, 0, 0, null);
        TenantView b = new TenantView(Jobs.TENANT_B, 2, 8000, 0, 0, null);
        Snapshot snapshot = Snapshots.of(List.of(aMachine("m1").cores(32).allocated(28_000, 0, 0).build()), a, b);
        PendingJob fromA = aJob().tenant(Jobs.TENANT_A).cores(4).order(1).build();
        PendingJob fromB = aJob().tenant(Jobs.TENANT_B).cores(4).order(2).build();

        assertThat(Snapshots.plan(snapshot, fromA, fromB).assignments()).extracting(Assignment::jobId)
                .containsExactly(fromB.jobId());
    }

    @Test
    void withinATenantTheOlderJobGoesFirst() {
        Snapshot snapshot = Snapshots.of(aMachine("m1").cores(4).build());
        PendingJob young = aJob().cores(4).order(20).build();
        PendingJob old = aJob().cores(4).order(10).build();

        assertThat(Snapshots.plan(snapshot, young, old).assignments()).extracting(Assignment::jobId)
                .containsExactly(old.jobId());
    }

    @Test
    void aTenantOverQuotaDoesNotBlockOthers() {
        TenantView capped = new TenantView(Jobs.TENANT_A, 1, 0, 0, 0, new Quota(2000L, null, null));
        Snapshot snapshot = Snapshots.of(List.of(aMachine("m1").cores(16).build()), capped);
        PendingJob first = aJob().tenant(Jobs.TENANT_A).cores(2).order(1).build();
        PendingJob second = aJob().tenant(Jobs.TENANT_A).cores(2).order(2).build();
        PendingJob other = aJob().tenant(Jobs.TENANT_B).cores(2).order(3).build();

        Plan plan = Snapshots.plan(snapshot, first, second, other);

        assertThat(Snapshots.machinesOf(plan)).containsOnlyKeys(first.jobId(), other.jobId());
        assertThat(plan.unplaced().get(second.jobId()).kind()).isEqualTo(UnplacedKind.OVER_QUOTA);
    }

    @Test
    void equallyGoodMachinesAreChosenByIdWhateverTheInputOrder() {
        List<MachineView> machines = new ArrayList<>();
        for (String id : List.of("m-c", "m-a", "m-d", "m-b")) {
            machines.add(aMachine(id).cores(8).build());
        }
        PendingJob job = aJob().cores(1).build();
        for (int shuffle = 0; shuffle < 10; shuffle++) {
            Collections.shuffle(machines, new Random(shuffle));
            assertThat(Snapshots.machinesOf(Snapshots.plan(Snapshots.of(machines), job))).containsEntry(job.jobId(), "m-a");
        }
    }

    @Test
    void aNarrowCandidateWindowStillPlacesWhenOnlyFewMachinesFit() {
        List<MachineView> machines = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            machines.add(aMachine("small-" + i).cores(8).memoryMb(1024).build());
        }
        machines.add(aMachine("big").cores(8).memoryMb(65_536).build());
        PendingJob job = aJob().cores(1).memoryMb(32_768).build();

        Plan plan = new PlacementEngine(1).plan(Snapshots.of(machines), List.of(job));

        assertThat(Snapshots.machinesOf(plan)).containsEntry(job.jobId(), "big");
    }

    @Test
    void refusesDuplicateIds() {
        PendingJob job = aJob().build();
        assertThatThrownBy(() -> Snapshots.plan(Snapshots.of(), job, job))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice in the batch");
        assertThatThrownBy(() -> Snapshots.plan(Snapshots.of(aMachine("m1").build(), aMachine("m1").build()), job))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice in the snapshot");
        assertThatThrownBy(() -> new PlacementEngine(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEmptyBatchGivesAnEmptyPlan() {
        Plan plan = new PlacementEngine().plan(Snapshots.of(aMachine("m1").build()), List.of());
        assertThat(plan.assignments()).isEmpty();
        assertThat(plan.unplaced()).isEmpty();
    }

    @Test
    void aPendingJobIsMadeFromAStoredSpec() {
        JobSpec spec = new JobSpec("train", null, 700,
                new Resources(new BigDecimal("2.5"), 8192L, 2, "A100|H100"),
                new Placement("us-east-1", Map.of("zone", "a"), PlacementStrategy.SPREAD),
                Execution.of("python", "train.py"), null, Map.of("team", "ml"));
        UUID jobId = Jobs.jobId(1);

        PendingJob job = PendingJob.of(jobId, Jobs.TENANT_A, spec, 42);

        assertThat(job).isEqualTo(new PendingJob(jobId, Jobs.TENANT_A, 700, 2500, 8192, 2, List.of("A100", "H100"),
                "us-east-1", Map.of("zone", "a"), PlacementStrategy.SPREAD, 42));
        JobSpec defaults = new JobSpec("x", null, null, Resources.of(1, 512), null,
                Execution.of("true"), null, null);
        assertThat(PendingJob.of(jobId, Jobs.TENANT_A, defaults, 1)).isEqualTo(new PendingJob(jobId, Jobs.TENANT_A,
                JobSpec.DEFAULT_PRIORITY, 1000, 512, 0, List.of(), null, Map.of(), PlacementStrategy.BINPACK, 1));
    }
}
