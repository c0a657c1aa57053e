/**
 * The placement engine: which machine each claimed job runs on, and, for a job that runs nowhere, why.
 * Plain Java with no Spring and no I/O; the scheduler service reads the snapshot, calls
 * {@link io.fleetjobs.scheduler.core.PlacementEngine#plan} and commits the plan with guarded SQL.
 *
 * <h2>API</h2>
 * Records in: {@link io.fleetjobs.scheduler.core.Snapshot} ({@link io.fleetjobs.scheduler.core.MachineView},
 * {@link io.fleetjobs.scheduler.core.TenantView}, {@link io.fleetjobs.scheduler.core.Quota}) and
 * {@link io.fleetjobs.scheduler.core.PendingJob}. Records out: {@link io.fleetjobs.scheduler.core.Plan}
 * ({@link io.fleetjobs.scheduler.core.Assignment}, {@link io.fleetjobs.scheduler.core.Unplaced}). Around the
 * plan, the cycle's policy: {@link io.fleetjobs.scheduler.core.ClaimPolicy} (what to claim next, by
 * {@link io.fleetjobs.scheduler.core.QueuePosition}) and {@link io.fleetjobs.scheduler.core.Reservations}
 * (room planned and not yet committed). After a plan: {@link io.fleetjobs.scheduler.core.Preemptions} (whom a job that
 * fits nowhere may end) and {@link io.fleetjobs.scheduler.core.Backfill} (which jobs run on a waiting gang's room until
 * it can start). Also public, for the service to keep between plans or to show: {@link
 * io.fleetjobs.scheduler.core.GpuDemand} (the GPU demand of the jobs claimed lately), {@link
 * io.fleetjobs.scheduler.core.GangHolds} (room held for waiting gangs), {@link io.fleetjobs.scheduler.core.RunningAttempt}
 * and {@link io.fleetjobs.scheduler.core.Preemption} (what preemption reads and decides), and {@link
 * io.fleetjobs.scheduler.core.NoRoomReasons} (when a job that waits for room first gets its reason written to its
 * row). Everything else is package-private.
 *
 * <h2>Pipeline</h2>
 * <pre>
 *   order jobs --&gt; quota --&gt; candidate search -----------------&gt; assignment (take capacity, charge tenant)
 *   (priority,               (index: pools by region and            |
 *    fair share,              GPU type, bucketed by free            +-- none --&gt; explain (full scan,
 *    age)                     capacity; filters; scorers)                        count per filter)
 * </pre>
 * Steps, one small class each:
 * <ul>
 *   <li>Order: {@link io.fleetjobs.scheduler.core.FairShareQueue} over a
 *       {@link io.fleetjobs.scheduler.core.TenantLedger} (Dominant Resource Fairness, weighted).</li>
 *   <li>Quota: {@link io.fleetjobs.scheduler.core.QuotaCheck}.</li>
 *   <li>Filters ({@link io.fleetjobs.scheduler.core.MachineFilter}), in the order of
 *       {@link io.fleetjobs.scheduler.core.FilterChain}, which documents why: region, isolation, GPU type, labels,
 *       total capacity per dimension, READY, fresh heartbeat, free capacity per dimension, free attempts.</li>
 *   <li>Scorers ({@link io.fleetjobs.scheduler.core.Scorer}, 0 to 100):
 *       {@link io.fleetjobs.scheduler.core.BinPackScorer} by default,
 *       {@link io.fleetjobs.scheduler.core.SpreadScorer} on request, each mixed by
 *       {@link io.fleetjobs.scheduler.core.WeightedScorer} with the GPU scorers that keep GPUs usable:
 *       {@link io.fleetjobs.scheduler.core.GpuAvoidanceScorer}, {@link io.fleetjobs.scheduler.core.GpuScarcityScorer},
 *       {@link io.fleetjobs.scheduler.core.GpuFragmentationScorer} and
 *       {@link io.fleetjobs.scheduler.core.GpuShortfallScorer}.</li>
 *   <li>Search: {@link io.fleetjobs.scheduler.core.MachineIndex} and
 *       {@link io.fleetjobs.scheduler.core.CandidateSearch}; explanation:
 *       {@link io.fleetjobs.scheduler.core.Explainer}.</li>
 * </ul>
 */
package io.fleetjobs.scheduler.core;
