package io.fleetjobs.scheduler.core;

import java.util.List;
import java.util.Objects;

/**
 * Decides where a batch of claimed jobs runs: a pure function from a {@link Snapshot} and the jobs to
 * a {@link Plan}. It reads nothing but its arguments, writes nothing, keeps no state between calls and
 * is safe to call from many threads at once. The same input gives the same plan, whatever the order of
 * the machines and jobs in it (the snapshot keeps machines in id order; jobs are ordered by the rules
 * of {@link FairShareQueue}).
 *
 * <pre>
 *  Snapshot                                   List&lt;PendingJob&gt;
 *     |                                              |
 *     v                                              v
 *  MachineIndex                               FairShareQueue
 *  healthy machines, in pools by region       priority, then lowest dominant share (re-ranked
 *  and GPU type, bucketed by free GPUs        after every placement), then oldest
 *  and free CPU                                      |
 *     |                                              | one job at a time
 *     |                                              v
 *     |                                         QuotaCheck ----- over quota -----&gt; Unplaced OVER_QUOTA
 *     |                                              |                           (CAN_NEVER_FIT when the
 *     |                                              v                            job alone exceeds it)
 *     +---- pools of the job's region ----&gt;  CandidateSearch
 *           and GPU types                   walk buckets tightest first (BINPACK) or loosest
 *                                           first (SPREAD); filters: labels, free GPU, CPU,
 *                                           memory; score the first K that fit (0-100):
 *                                           bin-pack or spread, plus GPU avoidance
 *                                              |                          |
 *                               best machine (ties: smaller id)      none fits
 *                                              |                          v
 *                                              v                     Explainer
 *                               take its capacity (re-bucket it),    every machine through the whole
 *                               charge the tenant                    FilterChain, counted under the
 *                                              |                     first filter that rejects it
 *                                              v                          |
 *                                         Assignment                      v
 *                                                                    Unplaced DOES_NOT_FIT_NOW or
 *                                                                    CAN_NEVER_FIT, with its reason
 * </pre>
 *
 * Within one plan every placement takes its machine's free capacity before the next job is decided,
 * so no two jobs of a plan share the same free capacity: the plan never asks more of a machine, in any
 * dimension, than the snapshot said was free. The committer must still guard the write (the database
 * refuses over-commitment), because the snapshot may be stale by then.
 */
public final class PlacementEngine {
    /** How many fitting machines per pool a job scores; see {@link CandidateSearch}. */
    public static final int DEFAULT_CANDIDATES_PER_POOL = 16;

    private final int candidatesPerPool;

    public PlacementEngine() {
        this(DEFAULT_CANDIDATES_PER_POOL);
    }

    /**
     * @param candidatesPerPool how many fitting machines of each pool (region and GPU type) a job scores
     *                          before choosing; more chooses better and costs more. At least 1.
     */
    public PlacementEngine(int candidatesPerPool) {
        if (candidatesPerPool < 1) {
            throw new IllegalArgumentException("candidatesPerPool must be at least 1");
        }
        this.candidatesPerPool = candidatesPerPool;
    }

    /**
     * Decides every job of the batch: each ends up in {@link Plan#assignments()} or, with its reason, in
     * {@link Plan#unplaced()}.
     *
     * @throws IllegalArgumentException if a machine id or a job id appears twice
     */
    public Plan plan(Snapshot snapshot, List<PendingJob> jobs) {
        Objects.requireNonNull(snapshot, "snapshot");
        Objects.requireNonNull(jobs, "jobs");
        return new PlanRun(snapshot, candidatesPerPool).decide(jobs);
    }
}
