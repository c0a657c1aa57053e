package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BinPackScorerTest {
    private final BinPackScorer scorer = new BinPackScorer();

    @ParameterizedTest(name = "machine {0}m/{1}MB/{2}GPU with {3}m/{4}MB/{5}GPU used, job {6}m/{7}MB/{8}GPU: {9}")
    @CsvSource({
            // machine total      allocated            job               score
            "16000, 65536, 0,    0,     0,      0,    4000,  16384,  0,   25.0",   // a quarter full after
            "16000, 65536, 0,    8000,  32768,  0,    8000,  32768,  0,  100.0",   // fills it exactly
            "16000, 65536, 0,    0,     0,      0,    16000, 16384,  0,   62.5",   // mean of 100% CPU, 25% memory
            "32000, 262144, 8,   0,     0,      0,    4000,  32768,  1,   12.5",   // an idle GPU machine
            "32000, 262144, 8,   24000, 196608, 6,    4000,  32768,  1,   87.5",   // a busy one
            "32000, 262144, 8,   0,     0,      6,    4000,  32768,  2,   56.25"}) // GPUs weigh twice: (1/8+1/8+2*1)/4
    void scoresHowFullTheMachineWouldBe(long cpu, long memory, int gpus, long usedCpu, long usedMemory, int usedGpus,
                                        long jobCpu, long jobMemory, int jobGpus, double expected) {
        MachineState machine = aMachine("m1").cpuMillis(cpu).memoryMb(memory).withGpus(gpus, gpus > 0 ? "H100" : null)
                .allocated(usedCpu, usedMemory, usedGpus).state();
        PendingJob job = aJob().cpuMillis(jobCpu).memoryMb(jobMemory).gpus(jobGpus).build();
        assertThat(scorer.score(job, machine)).isCloseTo(expected, within(1e-9));
    }

    @Test
    void prefersTheFullerMachineAndThePartlyUsedGpuMachine() {
        PendingJob cpuJob = aJob().cores(2).memoryMb(4096).build();
        MachineState busy = aMachine("busy").cores(16).allocated(12_000, 40_000, 0).state();
        MachineState idle = aMachine("idle").cores(16).state();
        assertThat(scorer.score(cpuJob, busy)).isGreaterThan(scorer.score(cpuJob, idle));

        PendingJob gpuJob = aJob().cores(4).memoryMb(16384).gpus(1, "H100").build();
        MachineState partlyUsed = aMachine("partly").cores(64).memoryMb(524_288).withGpus(8, "H100")
                .allocated(8000, 65_536, 7).state();
        MachineState whole = aMachine("whole").cores(64).memoryMb(524_288).withGpus(8, "H100").state();
        assertThat(scorer.score(gpuJob, partlyUsed)).isGreaterThan(scorer.score(gpuJob, whole));
    }
}
