package io.fleetjobs.scheduler.core;

import java.util.List;
import java.util.Objects;

/**
 * Decides where a batch of claimed jobs runs: a pure function from a {@link Snapshot} and the jobs to
 * a {@link Plan}. It reads nothing but its arguments, writes nothing, keeps no state between calls and
 * is safe to call from many threads at once. The same input gives the same plan, whatever the order of
 * the machines and jobs in it.
 *
 * <pre>
 *  Snapshot (machines, tenants)            List&lt;PendingJob&gt;
 *        |                                       |
 *        v                                       v
 *  +-------------+  READY and fresh   +-------------------+  priority, then lowest dominant
 *  | MachineIndex|  machines, pooled  |  FairShareQueue   |  share (re-ranked after every
 *  | by region & |  by region & GPU   |                   |  placement), then oldest
 *  | GPU type,   |  type              +-------------------+
 *  | sorted by   |                              | one job at a time
 *  | free        |                              v
 *  | capacity    |                    +-------------------+  over quota?
 *  +-------------+                    |    QuotaCheck     |-----------------> Unplaced OVER_QUOTA
 *        |                            +-------------------+                   (or CAN_NEVER_FIT)
 *        |  pools of the job's                  |
 *        |  region and GPU types                v
 *        |                            +-------------------+
 *        +--------------------------->|  CandidateSearch  |
 *                                     |   FilterChain:    |  no machine passes
 *                                     |   region, gpu-type,|-----+
 *                                     |   labels, total-*,|     |     +-------------+
 *                                     |   ready, heartbeat,|    +---->|  Explainer  |--> Unplaced
 *                                     |   free-*          |           | (full scan, |    DOES_NOT_FIT_NOW
 *                                     |   Scorer: BINPACK |           |  count per  |    or CAN_NEVER_FIT,
 *                                     |   or SPREAD, plus |           |  filter)    |    with reason
 *                                     |   GPU avoidance   |           +-------------+
 *                                     +-------------------+
 *                                               | best machine (ties: smaller id)
 *                                               v
 *                                     take its capacity (index re-sorts it), charge the tenant
 *                                               |
 *                                               v
 *                                          Assignment
 * </pre>
 *
 * Within one plan every placement takes its machine's free capacity before the next job is decided,
 * so no two jobs of a plan share the same free capacity: the plan never asks more of a machine, in any
 * dimension, than the snapshot said was free. The committer must still guard the write (the database
 * refuses over-commitment), because the snapshot may be stale by then.
 */
public final class PlacementEngine {
    /** How many fitting machines per pool a job scores; see {@link CandidateSearch}. */
    public static final int DEFAULT_CANDIDATES_PER_POOL = 32;

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
