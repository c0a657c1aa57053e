package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GpuAvoidanceScorerTest {
    private final GpuAvoidanceScorer scorer = new GpuAvoidanceScorer();

    @ParameterizedTest(name = "job with {0} GPUs on a machine with {1}: {2}")
    @CsvSource({
            "0, 0, 100",   // a CPU job on a CPU machine
            "0, 8, 0",     // a CPU job on a GPU machine, even an idle one
            "0, 1, 0",
            "1, 8, 100",   // GPU jobs only ever see GPU machines
            "8, 8, 100"})
    void keepsGpuMachinesForGpuJobs(int jobGpus, int machineGpus, double expected) {
        PendingJob job = aJob().gpus(jobGpus).build();
        MachineState machine = aMachine("m1").withGpus(machineGpus, machineGpus > 0 ? "A100" : null).state();
        assertThat(scorer.score(job, machine)).isEqualTo(expected);
    }
}
