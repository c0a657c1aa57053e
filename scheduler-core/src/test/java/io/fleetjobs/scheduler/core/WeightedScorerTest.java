package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fleetjobs.model.PlacementStrategy;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class WeightedScorerTest {

    @ParameterizedTest(name = "{0} and {1} weighed 1:2 give {2}")
    @CsvSource({"0, 0, 0", "100, 100, 100", "90, 0, 30", "0, 100, 66.66666666666667", "30, 60, 50"})
    void isTheWeightedMean(double first, double second, double expected) {
        WeightedScorer scorer = WeightedScorer.of((job, machine) -> first, 1, (job, machine) -> second, 2);
        assertThat(scorer.score(aJob().build(), aMachine("m1").state())).isCloseTo(expected, within(1e-9));
    }

    /** The property the candidate search's tiers rely on (see MachineIndex#tiers). */
    @ParameterizedTest
    @EnumSource(PlacementStrategy.class)
    void aCpuJobScoresHigherOnAnyCpuMachineThanOnAnyGpuMachine(PlacementStrategy strategy) {
        WeightedScorer scorer = WeightedScorer.forStrategy(strategy);
        Random random = new Random(7);
        for (int i = 0; i < 1000; i++) {
            PendingJob job = aJob().cpuMillis(1 + random.nextInt(4000)).memoryMb(1 + random.nextInt(8192))
                    .strategy(strategy).build();
            MachineState cpuMachine = aMachine("cpu").cpuMillis(4000 + random.nextInt(60_000))
                    .memoryMb(8192 + random.nextInt(500_000)).allocated(0, 0, 0).state();
            int gpus = 1 + random.nextInt(8);
            MachineState gpuMachine = aMachine("gpu").cpuMillis(4000 + random.nextInt(60_000))
                    .memoryMb(8192 + random.nextInt(500_000)).withGpus(gpus, "H100")
                    .allocated(random.nextInt(4000), random.nextInt(8192), random.nextInt(gpus + 1)).state();
            assertThat(scorer.score(job, cpuMachine)).as("case %d", i).isGreaterThan(scorer.score(job, gpuMachine));
        }
    }

    @Test
    void everyScorerStaysWithinZeroToHundredOnMachinesThatFit() {
        Random random = new Random(11);
        Scorer[] scorers = {new BinPackScorer(), new SpreadScorer(), new GpuAvoidanceScorer(),
                WeightedScorer.forStrategy(PlacementStrategy.BINPACK), WeightedScorer.forStrategy(PlacementStrategy.SPREAD)};
        for (int i = 0; i < 2000; i++) {
            int gpus = random.nextBoolean() ? 0 : 1 + random.nextInt(8);
            long cpu = 1000 + random.nextInt(64_000);
            long memory = 1024 + random.nextInt(500_000);
            MachineState machine = aMachine("m").cpuMillis(cpu).memoryMb(memory).withGpus(gpus, gpus > 0 ? "A100" : null)
                    .allocated(random.nextLong(cpu), random.nextLong(memory), gpus == 0 ? 0 : random.nextInt(gpus)).state();
            PendingJob job = aJob().cpuMillis(1 + random.nextLong(machine.freeCpuMillis()))
                    .memoryMb(1 + random.nextLong(machine.freeMemoryMb()))
                    .gpus(machine.freeGpus() == 0 ? 0 : random.nextInt(machine.freeGpus() + 1)).build();
            for (Scorer scorer : scorers) {
                assertThat(scorer.score(job, machine)).as("case %d, %s", i, scorer.getClass().getSimpleName())
                        .isBetween(0.0, 100.0);
            }
        }
    }
}
