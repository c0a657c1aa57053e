package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.PlacementStrategy;

/**
 * The weighted mean of a few scorers: still 0 to 100.
 *
 * <p>For both strategies, {@link GpuAvoidanceScorer} weighs twice the strategy's scorer, which makes it
 * decide alone whenever it differs: a CPU job scores at least 200/3 (about 66.7) on any machine without
 * GPUs and at most 100/3 (about 33.3) on any GPU machine. So a CPU job goes on a GPU machine only when no
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

    static WeightedScorer forStrategy(PlacementStrategy strategy) {
        Scorer main = strategy == PlacementStrategy.SPREAD ? new SpreadScorer() : new BinPackScorer();
        return of(main, 1, new GpuAvoidanceScorer(), 2);
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
