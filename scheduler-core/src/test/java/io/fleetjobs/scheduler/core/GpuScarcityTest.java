package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Keeping scarce GPU models for the jobs that can run only there: the demand, its pressure, the scorer, the engine. */
class GpuScarcityTest {

    @Test
    void demandIsTheShareOfGpusOnlyAModelCanServeAndAFewModelsSplitIt() {
        GpuDemand demand = GpuDemand.of(List.of(
                aJob().gpus(4).build(),                       // any model
                aJob().gpus(2, "H100").build(),               // only H100
                aJob().gpus(2, "A100", "H100").build(),       // either: one GPU's worth each
                aJob().build()));                             // no GPU: no GPU demand
        assertThat(demand.restrictedShare("H100")).isCloseTo(3.0 / 8, within(1e-9));
        assertThat(demand.restrictedShare("A100")).isCloseTo(1.0 / 8, within(1e-9));
        assertThat(demand.restrictedShare("L4")).isZero();
        assertThat(GpuDemand.of(List.of())).isEqualTo(GpuDemand.NONE);
    }

    @Test
    void theTrackerLetsOldDemandFade() {
        GpuDemand.Tracker tracker = new GpuDemand.Tracker(100);
        for (int i = 0; i < 100; i++) {
            tracker.record(aJob().gpus(1, "H100").build());
        }
        assertThat(tracker.current().restrictedShare("H100")).isCloseTo(1, within(1e-9));
        for (int i = 0; i < 300; i++) {
            tracker.record(aJob().gpus(1).build());
        }
        // after three windows of unrestricted demand, what was restricted weighs about e^-3 of the old
        assertThat(tracker.current().restrictedShare("H100")).isBetween(0.02, 0.06);
    }

    /** Pressure: restricted share × free GPUs of the fleet / free GPUs of the model. */
    @ParameterizedTest(name = "share {0}, the model {1} of {2} free GPUs: pressure {3}")
    @CsvSource({"0.0, 8, 16, 0", "0.5, 8, 16, 1", "0.25, 8, 16, 0.5", "0.25, 2, 16, 2", "0.5, 0, 16, 8"})
    void pressureWeighsTheRestrictedDemandAgainstTheModelsFreeGpus(double share, int modelFree, int fleetFree,
            double expected) {
        GpuPressure pressure = new GpuPressure(new GpuDemand(Map.of("H100", share)));
        if (modelFree > 0) {
            pressure.add(aMachine("h").withGpus(modelFree, "H100").state());
        }
        pressure.add(aMachine("a").withGpus(fleetFree - modelFree, "A10").state());
        assertThat(pressure.of("H100")).isCloseTo(expected, within(1e-9));
        assertThat(pressure.of("A10")).isZero();
    }

    @Test
    void onlyJobsWithAChoiceOfModelsAreSteeredAndCpuMachinesAreNeutral() {
        GpuPressure pressure = new GpuPressure(new GpuDemand(Map.of("H100", 0.25)));
        MachineState h100 = aMachine("h").withGpus(8, "H100").state();
        MachineState a10 = aMachine("a").withGpus(8, "A10").state();
        pressure.add(h100);
        pressure.add(a10);
        GpuScarcityScorer scorer = new GpuScarcityScorer(pressure);
        assertThat(scorer.score(aJob().gpus(1).build(), h100)).isCloseTo(50, within(1e-9)); // pressure 0.5
        assertThat(scorer.score(aJob().gpus(1).build(), a10)).isEqualTo(100);
        assertThat(scorer.score(aJob().gpus(1, "H100", "A10").build(), h100)).isCloseTo(50, within(1e-9));
        assertThat(scorer.score(aJob().gpus(1, "H100").build(), h100)).as("no choice").isEqualTo(100);
        assertThat(scorer.score(aJob().build(), aMachine("c").state())).isEqualTo(100);
    }

    /**
     * The effect of the benchmark in a nutshell: bin-packing alone puts a job that may use any GPU on the fullest
     * machine, a scarce model's; told that jobs wait for that model, the engine leaves it to them.
     */
    @Test
    void aJobThatMayUseAnyGpuLeavesTheModelOthersNeed() {
        List<MachineView> machines = List.of(
                aMachine("h100-half-used").cores(64).memoryMb(524_288).withGpus(8, "H100").allocated(32_000, 262_144, 4).build(),
                aMachine("a10-idle").cores(64).memoryMb(524_288).withGpus(8, "A10").build());
        PendingJob anyGpu = aJob().cores(4).memoryMb(8192).gpus(2).build();

        Snapshot blind = new Snapshot(machines, Map.of(), Machines.FRESH);
        assertThat(Snapshots.machinesOf(Snapshots.plan(blind, anyGpu))).containsEntry(anyGpu.jobId(), "h100-half-used");

        GpuDemand h100Wanted = GpuDemand.of(List.of(aJob().gpus(4, "H100").build(), aJob().gpus(4).build()));
        Snapshot told = new Snapshot(machines, Map.of(), Machines.FRESH, h100Wanted);
        assertThat(Snapshots.machinesOf(Snapshots.plan(told, anyGpu))).containsEntry(anyGpu.jobId(), "a10-idle");

        PendingJob h100Only = aJob().cores(4).memoryMb(8192).gpus(2, "H100").build();
        assertThat(Snapshots.machinesOf(Snapshots.plan(told, h100Only))).containsEntry(h100Only.jobId(), "h100-half-used");
    }

    @Test
    void theTrackerKeepsTheSizesOfGpuJobsAndWhatTheyAskBesideEachGpu() {
        GpuDemand demand = GpuDemand.of(List.of(aJob().cpuMillis(8000).memoryMb(16_384).gpus(1).build(),
                aJob().cpuMillis(8000).memoryMb(16_384).gpus(1).build(), aJob().cpuMillis(24_000).memoryMb(49_152).gpus(8).build()));
        assertThat(demand.sizeShare().get(0)).isCloseTo(2.0 / 3, within(1e-9));
        assertThat(demand.sizeShare().get(7)).isCloseTo(1.0 / 3, within(1e-9));
        assertThat(demand.cpuMillisPerGpu()).isEqualTo(4000); // 40 cores over 10 GPUs
        assertThat(demand.memoryMbPerGpu()).isEqualTo(8192);
    }

    @Test
    void sizesWeighedByGpusSayWhatShareOfTheGpusComesInJobsOfEachSize() {
        GpuDemand byJobs = new GpuDemand(Map.of("H100", 0.25), List.of(0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5), 4000, 8192);
        GpuDemand byGpus = byJobs.sizesByGpus();
        // half the jobs take 1 GPU and half take 8: of every 9 GPUs asked, 1 comes in a job of 1 and 8 in a job of 8
        assertThat(byGpus.sizeShare().get(0)).isCloseTo(1.0 / 9, within(1e-9));
        assertThat(byGpus.sizeShare().get(7)).isCloseTo(8.0 / 9, within(1e-9));
        assertThat(byGpus.restrictedShare()).isEqualTo(byJobs.restrictedShare());
        assertThat(byGpus.cpuMillisPerGpu()).isEqualTo(4000);
        assertThat(GpuDemand.NONE.sizesByGpus()).as("nothing known of sizes").isEqualTo(GpuDemand.NONE);
    }

    /** Half the likely jobs take 1 GPU, half take 8, each with 4 cores per GPU. */
    @ParameterizedTest(name = "{0} GPUs and {1} cores free, the job takes {2} GPUs and {3} cores: {4}")
    @CsvSource({
            // an idle 8-GPU machine broken by a 1-GPU job: the 8-GPU half can no longer use its 7 free GPUs
            "8, 32, 1, 4, 28.125",
            // the same job on a machine with 1 GPU free that only 1-GPU jobs could use: it removes that fragment
            "1, 32, 1, 4, 53.125",
            // the job leaves 4 GPUs without the CPU any likely job needs beside them: all 4 become fragments
            "5, 8, 1, 6, 40.625"})
    void aPlacementScoresByTheFragmentationItAddsForTheLikelyJobs(int freeGpus, int freeCores, int gpus, int cores,
            double expected) {
        GpuDemand demand = new GpuDemand(Map.of(), List.of(0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5), 4000, 1);
        MachineState machine = aMachine("m").cores(64).memoryMb(524_288).withGpus(8, "H100")
                .allocated(64_000 - freeCores * 1000L, 0, 8 - freeGpus).state();
        PendingJob job = aJob().cpuMillis(cores * 1000L).memoryMb(1).gpus(gpus).build();
        assertThat(new GpuFragmentationScorer(demand).score(job, machine)).isCloseTo(expected, within(1e-9));
        assertThat(new GpuFragmentationScorer(GpuDemand.NONE).score(job, machine)).as("nothing known").isEqualTo(50);
    }
}
