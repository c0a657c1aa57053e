package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.PlacementStrategy;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Finds the machine for one job: walks the job's pools tier by tier, keeps in each pool the first
 * {@code candidatesPerPool} machines that pass every filter, and returns the one that scores best
 * (ties to the smaller machine id).
 *
 * <p>BINPACK walks each pool from the least free machine up, so its candidates are the tightest fits;
 * SPREAD walks from the most free down. Scoring only a bounded window of feasible machines per pool,
 * rather than all of them, is what keeps a placement cheap on a large fleet (Kubernetes and Nomad bound
 * the nodes they score the same way); the window starts where the strategy's best machines are.
 * Filters are still asked for every machine the walk visits, so a machine returned always fits, and a
 * null answer means no machine fits (the index yields a superset of the fitting machines).
 */
final class CandidateSearch {
    private final MachineIndex index;
    private final FilterChain filters;
    private final int candidatesPerPool;
    private final Map<PlacementStrategy, Scorer> scorers = new EnumMap<>(PlacementStrategy.class);

    CandidateSearch(MachineIndex index, FilterChain filters, int candidatesPerPool) {
        this.index = index;
        this.filters = filters;
        this.candidatesPerPool = candidatesPerPool;
        for (PlacementStrategy strategy : PlacementStrategy.values()) {
            scorers.put(strategy, WeightedScorer.forStrategy(strategy));
        }
    }

    /** The best machine for the job now, or null if none fits. */
    MachineState best(PendingJob job) {
        Scorer scorer = scorers.get(job.strategy());
        boolean tightestFirst = job.strategy() != PlacementStrategy.SPREAD;
        for (List<Pool> tier : index.tiers(job)) {
            MachineState best = null;
            double bestScore = Double.NEGATIVE_INFINITY;
            for (Pool pool : tier) {
                int found = 0;
                Iterator<MachineState> walk = pool.candidates(job, tightestFirst);
                while (found < candidatesPerPool && walk.hasNext()) {
                    MachineState machine = walk.next();
                    if (!filters.accepts(job, machine)) {
                        continue;
                    }
                    found++;
                    double score = scorer.score(job, machine);
                    if (score > bestScore || (score == bestScore && machine.id().compareTo(best.id()) < 0)) {
                        best = machine;
                        bestScore = score;
                    }
                }
            }
            if (best != null) {
                return best;
            }
        }
        return null;
    }
}
