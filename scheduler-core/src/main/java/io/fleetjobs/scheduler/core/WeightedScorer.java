package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.PlacementStrategy;

/**
 * The weighted mean of a few scorers: still 0 to 100.
 *
 * <p>For both strategies: the strategy's scorer weighs 1, {@link GpuAvoidanceScorer} 2,
 * {@link GpuScarcityScorer} {@link #SCARCITY_WEIGHT}, {@link GpuFragmentationScorer} {@link #FRAGMENTATION_WEIGHT}
 * and {@link GpuShortfallScorer} {@link #SHORTFALL_WEIGHT}. Avoidance decides alone whenever it differs: a CPU job
 * scores 50 on fragmentation everywhere, 100 on shortfall everywhere, and 100 on scarcity on a machine without GPUs
 * (at most 100 elsewhere), so with w the scarcity and shortfall weights together it scores at least
 * (2 + w)·100 + f·50 (over the total weight, f the fragmentation weight) on a machine without GPUs and at most
 * (1 + w)·100 + f·50 on any GPU
 * machine. So a CPU job goes on a GPU machine only when no
 * CPU machine fits, and the candidate search may look at GPU machines only after finding no CPU machine
 * (see {@link MachineIndex#tiers}).
 */
final class WeightedScorer implements Scorer {
    private final Scorer[] scorers;
    private final double[] weights;
    private final double totalWeight;

    private WeightedScorer(Scorer[] scorers, double[] weights) {
        this.scorers = scorers;
        this.weights = weights;
        double total = 0;
        for (double weight : weights) {
            total += weight;
        }
        this.totalWeight = total;
    }

    static WeightedScorer of(Scorer first, double firstWeight, Scorer second, double secondWeight) {
        return new WeightedScorer(new Scorer[] {first, second}, new double[] {firstWeight, secondWeight});
    }

    /** How much keeping scarce GPU models usable weighs against the strategy's scorer (1). */
    static final double SCARCITY_WEIGHT = 1;

    /** For a plan that knows nothing of the demand for GPU models. */
    static WeightedScorer forStrategy(PlacementStrategy strategy) {
        return forStrategy(strategy, new GpuPressure(GpuDemand.NONE));
    }

    /**
     * How much keeping GPU machines usable for the likely job sizes weighs. The sizes are weighed by the GPUs they
     * ask ({@link GpuDemand#sizesByGpus}): a free GPU is wasted for the share of the demanded GPUs that comes in jobs
     * it cannot serve, and jobs of 8 GPUs, a tenth of the jobs, may ask a third of the GPUs.
     */
    static final double FRAGMENTATION_WEIGHT = 1;

    /** How much the chance that a GPU model runs out for the jobs that can use only it weighs. */
    static final double SHORTFALL_WEIGHT = 0.5;

    static WeightedScorer forStrategy(PlacementStrategy strategy, GpuPressure pressure) {
        Scorer main = strategy == PlacementStrategy.SPREAD ? new SpreadScorer() : new BinPackScorer();
        return new WeightedScorer(new Scorer[] {main, new GpuAvoidanceScorer(), new GpuScarcityScorer(pressure),
                new GpuFragmentationScorer(pressure.demand().sizesByGpus()), new GpuShortfallScorer(pressure)},
                new double[] {1, 2, SCARCITY_WEIGHT, FRAGMENTATION_WEIGHT, SHORTFALL_WEIGHT});
    }

    @Override
    public double score(PendingJob job, MachineState machine) {
        double sum = 0;
        for (int i = 0; i < scorers.length; i++) {
            sum += weights[i] * scorers[i].score(job, machine);
        }
        return sum / totalWeight;
    }
}
