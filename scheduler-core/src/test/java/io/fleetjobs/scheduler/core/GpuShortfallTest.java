package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The chance that a GPU model runs out for the jobs that can use only it, and the scorer that weighs it. */
class GpuShortfallTest {

    @ParameterizedTest(name = "sizes {0}: a GPU belongs to a job of {1} GPUs on average")
    @CsvSource({
            "'', 1",                                   // nothing known: one GPU at a time
            "'1.0', 1",                                // every job one GPU
            "'0.5, 0, 0, 0, 0, 0, 0, 0.5', 7.222222222222222", // half the jobs 1, half 8: (1 + 64) / (1 + 8)
            "'0, 0, 0, 1.0', 4"})                      // every job four
    void theGpuWeightedJobSizeSaysHowLumpyTheDemandComes(String shares, double expected) {
        List<Double> sizeShare = shares.isBlank() ? List.of()
                : Arrays.stream(shares.split(",")).map(String::trim).map(Double::valueOf).toList();
        assertThat(new GpuDemand(Map.of(), sizeShare, 0, 0).gpuWeightedJobSize()).isCloseTo(expected, within(1e-9));
    }

    /**
     * H100 among 64 free GPUs, a quarter of the demand only for H100: 16 GPUs expected, give or take 4 when jobs take
     * one GPU (z = (left − 16) / 4), give or take 8 when a GPU belongs to a job of 4 on average.
     */
    @ParameterizedTest(name = "H100 {0} free, taking {1}, jobs of {2} GPUs: chance {3}")
    @CsvSource({
            "16, 0, 1, 0.5",                 // left as many as expected: even odds
            "24, 0, 1, 0.0322",              // two spreads to spare: 1 / (1 + e^3.404)
            "24, 8, 1, 0.5",                 // taking 8 of them leaves as many as expected
            "8, 0, 1, 0.9678",               // two spreads short
            "24, 0, 4, 0.1543",              // the same margin is one spread when the demand comes in fours
            "24, 4, 4, 0.2992"})             // ... and half a spread once this job takes 4: 1 / (1 + e^0.851)
    void theChanceThatTheModelRunsOutWeighsTheMarginAgainstTheSpreadOfTheDemand(int modelFree, int taking,
            int jobSize, double expected) {
        List<Double> sizes = new ArrayList<>(Collections.nCopies(GpuDemand.MAX_SIZE, 0.0));
        sizes.set(jobSize - 1, 1.0);
        GpuPressure pressure = new GpuPressure(new GpuDemand(Map.of("H100", 0.25), sizes, 0, 0));
        pressure.add(aMachine("h").withGpus(modelFree, "H100").state());
        pressure.add(aMachine("a").withGpus(64 - modelFree, "A10").state());
        assertThat(pressure.shortfall("H100", taking)).isCloseTo(expected, within(1e-4));
        assertThat(pressure.shortfall("A10", taking)).as("nobody waits for A10").isZero();
    }

    @Test
    void withNothingFreeInTheFleetNothingMoreIsExpected() {
        GpuPressure pressure = new GpuPressure(new GpuDemand(Map.of("H100", 0.5)));
        assertThat(pressure.shortfall("H100", 0)).as("no free GPU anywhere: no demand is expected until the fleet fills").isZero();
    }

    @Test
    void onlyJobsWithAChoiceOfModelsOnGpuMachinesAreSteered() {
        GpuPressure pressure = new GpuPressure(new GpuDemand(Map.of("H100", 0.25)));
        MachineState h100 = aMachine("h").withGpus(16, "H100").state();
        MachineState a10 = aMachine("a").withGpus(48, "A10").state();
        pressure.add(h100);
        pressure.add(a10);
        GpuShortfallScorer scorer = new GpuShortfallScorer(pressure);
        // 16 of H100 expected among 64 free, 4 either way: a job of 8 leaves 8, two spreads short
        assertThat(scorer.score(aJob().gpus(8).build(), h100)).isCloseTo(3.22, within(0.01));
        assertThat(scorer.score(aJob().gpus(8, "H100", "A10").build(), h100)).isCloseTo(3.22, within(0.01));
        assertThat(scorer.score(aJob().gpus(8).build(), a10)).isEqualTo(100);
        assertThat(scorer.score(aJob().gpus(8, "H100").build(), h100)).as("no choice").isEqualTo(100);
        assertThat(scorer.score(aJob().build(), h100)).as("no GPU").isEqualTo(100);
        assertThat(scorer.score(aJob().build(), aMachine("c").state())).isEqualTo(100);
    }
}
