package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.PlacementStrategy;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the machine for one job: walks the job's pools tier by tier, keeps in each pool the first
 * {@code candidatesPerPool} machines that pass the filters, and returns the one that scores best (ties
 * to the smaller machine id).
 *
 * <p>BINPACK walks each pool from the least free machines up, so its candidates are the tightest fits;
 * SPREAD walks from the most free down. Scoring only a bounded window of fitting machines per pool,
 * rather than all of them, is what keeps a placement cheap on a large fleet (Kubernetes and Nomad bound
 * the nodes they score the same way); the window starts where the strategy's best machines are.
 * Every machine the walk visits is checked by the filters the index does not guarantee
 * ({@link FilterChain#afterIndex}), so a machine returned always fits, and a null answer means no
 * machine fits (the index yields a superset of the fitting machines).
 */
final class CandidateSearch {
    private final MachineIndex index;
    private final FilterChain afterIndex = FilterChain.afterIndex();
    private final int candidatesPerPool;
    private final Map<PlacementStrategy, Scorer> scorers = new EnumMap<>(PlacementStrategy.class);

    CandidateSearch(MachineIndex index, int candidatesPerPool, GpuPressure pressure) {
        this.index = index;
        this.candidatesPerPool = candidatesPerPool;
        for (PlacementStrategy strategy : PlacementStrategy.values()) {
            scorers.put(strategy, WeightedScorer.forStrategy(strategy, pressure));
        }
    }

    /** The best machine for the job now, or null if none fits. */
    MachineState best(PendingJob job) {
        return best(job, Set.of());
    }

    /** The best machine for the job now other than {@code excluded} (a gang's machines so far), or null. */
    MachineState best(PendingJob job, Set<MachineState> excluded) {
        boolean tightestFirst = job.strategy() != PlacementStrategy.SPREAD;
        FilterChain filters = afterIndex.forJob(job);
        Scorer scorer = scorers.get(job.strategy());
        for (List<Pool> tier : index.tiers(job)) {
            Window window = new Window(job, filters, scorer, excluded);
            for (Pool pool : tier) {
                window.found = 0;
                pool.visit(job, tightestFirst, window);
            }
            if (window.best != null) {
                return window.best;
            }
        }
        return null;
    }

    /** The best machine seen so far in one tier, and how many fitting machines the current pool gave. */
    private final class Window implements Pool.Visitor {
        private final PendingJob job;
        private final FilterChain filters;
        private final Scorer scorer;
        private final Set<MachineState> excluded;
        private MachineState best;
        private double bestScore = Double.NEGATIVE_INFINITY;
        private int found;

        Window(PendingJob job, FilterChain filters, Scorer scorer, Set<MachineState> excluded) {
            this.job = job;
            this.excluded = excluded;
            this.filters = filters;
            this.scorer = scorer;
        }

        @Override
        public boolean visit(MachineState machine) {
            if (!filters.accepts(job, machine) || (!excluded.isEmpty() && excluded.contains(machine))) {
                return true;
            }
            double score = scorer.score(job, machine);
            if (score > bestScore || (score == bestScore && machine.id().compareTo(best.id()) < 0)) {
                best = machine;
                bestScore = score;
            }
            return ++found < candidatesPerPool;
        }
    }
}
