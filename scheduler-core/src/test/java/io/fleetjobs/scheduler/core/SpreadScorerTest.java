package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SpreadScorerTest {
    private final SpreadScorer scorer = new SpreadScorer();

    @ParameterizedTest(name = "machine {0}m/{1}MB with {2}m/{3}MB used, job {4}m/{5}MB: {6}")
    @CsvSource({
            "16000, 65536, 0,     0,     4000, 16384,  75.0",
            "16000, 65536, 8000,  32768, 8000, 32768,   0.0",
            "16000, 65536, 12000, 0,     1000, 16384,  46.875", // mean of 3/16 and 3/4 free
            "64000, 65536, 0,     0,     1000, 1024,   98.4375"})
    void scoresHowEmptyTheMachineWouldStay(long cpu, long memory, long usedCpu, long usedMemory,
                                           long jobCpu, long jobMemory, double expected) {
        MachineState machine = aMachine("m1").cpuMillis(cpu).memoryMb(memory).allocated(usedCpu, usedMemory, 0).state();
        PendingJob job = aJob().cpuMillis(jobCpu).memoryMb(jobMemory).build();
        assertThat(scorer.score(job, machine)).isCloseTo(expected, within(1e-9));
    }

    @Test
    void isTheMirrorOfBinPacking() {
        PendingJob job = aJob().cores(3).memoryMb(5000).gpus(1, "L4").build();
        MachineState machine = aMachine("m1").cores(24).memoryMb(98_304).withGpus(4, "L4").allocated(5000, 7000, 2).state();
        assertThat(scorer.score(job, machine) + new BinPackScorer().score(job, machine)).isCloseTo(100.0, within(1e-9));
    }
}
