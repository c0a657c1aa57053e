package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.HeartbeatCadence;
import io.fleetjobs.model.UnplacedKind;
import io.fleetjobs.scheduler.core.Backfill;
import io.fleetjobs.scheduler.core.ClaimPolicy;
import io.fleetjobs.scheduler.core.NoRoomReasons;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.core.Plan;
import io.fleetjobs.scheduler.core.Preemptions;
import io.fleetjobs.scheduler.core.QueuePosition;
import io.fleetjobs.scheduler.core.Snapshot;
import io.fleetjobs.scheduler.core.Unplaced;
import io.fleetjobs.store.ClaimedJob;
import io.fleetjobs.store.GangHoldRows;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.store.PreemptionStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One scheduling cycle:
 *
 * <pre>
 *   claim ──────────▶ snapshot ──────▶ plan (pure) ──▶ commit
 *   QUEUED, not_before  machines,        filters,        attempts, GPU holds, machine usage,
 *   passed, from the    tenants' usage   scorers,        SCHEDULED + history + events;
 *   {@link ClaimPolicy}, (cached,          fair share      unplaced: reason (+ backoff if it can never fit);
 *   SKIP LOCKED         {@link FleetCache})                 no room left under lock: re-plan
 * </pre>
 *
 * A job without room now gets its first reason only once it has waited a while ({@link NoRoomReasons}): most find a
 * place a moment later.
 *
 * A job that could never fit on any machine gets a backoff ({@code retryNeverFits}; when it was found so before, a
 * quarter of its age between {@code retryStillNeverFits} and {@code retryNeverFitsMax}) in its row, lifted when a
 * machine joins or its tenant's quota changes; one
 * without room now, or over its tenant's quota, is passed over by the next claims instead.
 *
 * <p>Any number of replicas, and of workers in each ({@link FleetCache}), run cycles at once: {@code SKIP
 * LOCKED} gives each its own jobs, machine rows are locked in id order at commit and re-checked there (a
 * job whose machine lost its room is re-planned at once on a fresh snapshot), and the database refuses
 * over-commit. Plain Java over the store, so tests run several cycles side by side without Spring.
 */
public final class SchedulerCycle {
    /** Rounds of re-planning of jobs whose machine lost its room to another replica. */
    private static final int REPLANS = 3;

    private final JobStore jobs;
    private final PlacementStore placement;
    private final PlacementEngine engine;
    private final SchedulerProperties properties;
    private final CycleMeters meters;
    private final ClaimPolicy claims;
    private final NoRoomReasons reasons;
    private final FleetCache fleet;
    private final Consumer<Collection<String>> placedOn;
    private final PreemptionPass preemption;

    public SchedulerCycle(JobStore jobs, PlacementStore placement, PlacementEngine engine, SchedulerProperties properties,
            MeterRegistry meters) {
        this(jobs, placement, engine, properties, meters, machines -> { });
    }

    /** @param placedOn told, after each commit, the machines that got new attempts (to wake their agents) */
    public SchedulerCycle(JobStore jobs, PlacementStore placement, PlacementEngine engine, SchedulerProperties properties,
            MeterRegistry meters, Consumer<Collection<String>> placedOn) {
        this(jobs, placement, engine, properties, meters, placedOn, null, Preemptions.Scope.OWN_OR_OVER_SHARE);
    }

    /**
     * @param preemptions where jobs that fit nowhere may preempt lower-priority attempts; null: they never do
     * @param scope whose attempts they may end
     */
    public SchedulerCycle(JobStore jobs, PlacementStore placement, PlacementEngine engine, SchedulerProperties properties,
            MeterRegistry meters, Consumer<Collection<String>> placedOn, PreemptionStore preemptions,
            Preemptions.Scope scope) {
        this.preemption = preemptions == null ? null : new PreemptionPass(preemptions, scope, meters,
                properties.retryNoRoom());
        this.jobs = jobs;
        this.placement = placement;
        this.engine = engine;
        this.properties = properties;
        this.meters = new CycleMeters(meters);
        this.claims = new ClaimPolicy(properties.batchSize(), properties.retryNoRoom());
        this.reasons = new NoRoomReasons(properties.noRoomReasonAfter());
        this.fleet = new FleetCache(placement, properties, this.meters.snapshot);
        this.placedOn = placedOn;
    }

    /** Machines take new work for as long past their heartbeat as the agents' interval grew ({@link FleetCache#followCadence}). */
    public void followCadence(Supplier<HeartbeatCadence> cadence, Duration minInterval) {
        fleet.followCadence(cadence, minInterval);
    }

    /**
     * What a cycle did.
     *
     * @param roomLeft whether some machine still had room for any job after it ({@link Plan#leavesRoomIn})
     */
    public record Result(int claimed, int placed, int deferred, int conflicts, boolean roomLeft) {
    }

    /**
     * Claims, plans and commits a batch; then re-plans, on a fresh snapshot, the jobs whose machine
     * lost its room to another replica at commit. Each round is a transaction of its own, so that
     * machine rows are always locked in one id order per transaction (no deadlock between replicas).
     */
    public Result runOnce() {
        try {
            return meters.cycle.record(this::rounds);
        } catch (RuntimeException e) {
            lookAgain(); // a rolled-back round's placements are still in the cache, its jobs not looked at
            throw e;
        }
    }

    private Result rounds() {
        ClaimPolicy.Claim claim = claims.next(jobs.clock().instant());
        QueuePosition after = claim.after();
        Round round = transaction(() -> after == null ? placement.claim(claim.limit())
                : placement.claimAfter(claim.limit(), after.priority(), after.ahead(), after.jobId()));
        claims.claimed(claim, round.outcome, jobs.clock().instant());
        int claimed = round.claimed;
        int placed = round.outcome.placed();
        int deferred = round.deferred;
        int lost = round.conflicts.size();
        boolean unsettled = false;
        for (int r = 0; r < REPLANS && !round.conflicts.isEmpty(); r++) {
            List<UUID> again = round.conflicts;
            round = transaction(() -> placement.reclaim(again));
            unsettled |= round.claimed < again.size(); // some held by another worker, which may drop them too
            placed += round.outcome.placed();
            deferred += round.deferred;
            lost += round.conflicts.size();
        }
        if (unsettled || !round.conflicts.isEmpty()) {
            // jobs this cycle neither placed nor found without room may lie behind the resume point: the
            // next claim starts at the head, so that none waits for the restart after retryNoRoom
            claims.restart();
        }
        meters.placements.increment(placed);
        meters.conflicts.increment(lost);
        return new Result(claimed, placed, deferred, lost, round.outcome.roomLeft());
    }

    /** Room appeared (an attempt ended, a machine joined): claim from the head, on machines read afresh. */
    public void lookAgain() {
        claims.restart();
        fleet.invalidate();
    }

    /** One round: what its claim found, how many were deferred, and what to re-plan. */
    private record Round(int claimed, ClaimPolicy.Outcome outcome, int deferred, List<UUID> conflicts,
            Set<String> machines) {
    }

    /** One round in a transaction of its own; its placements stay reserved until the transaction has ended. */
    private Round transaction(Supplier<List<ClaimedJob>> claim) {
        Object token = new Object();
        Round round;
        try {
            round = jobs.inTransaction(() -> planAndCommit(meters.claim.record(claim), token));
        } finally {
            fleet.release(token);
        }
        placedOn.accept(round.machines);
        return round;
    }

    private Round planAndCommit(List<ClaimedJob> claimed, Object token) {
        if (claimed.isEmpty()) {
            return new Round(0, new ClaimPolicy.Outcome(0, 0, 0, null), 0, List.of(), Set.of());
        }
        Map<UUID, ClaimedJob> byId = new HashMap<>();
        claimed.forEach(j -> byId.put(j.id(), j));
        Instant now = jobs.clock().instant();
        List<PendingJob> pending = ClaimedJobs.pending(claimed, now, properties.gangHolds());
        Snapshot[] seen = new Snapshot[1];
        BackfillReads backfill = pending.stream().anyMatch(PendingJob::gangDue) ? BackfillReads.of(placement, pending, now)
                : null;
        Plan plan = fleet.plan(token, now, pending, snapshot -> {
            seen[0] = snapshot;
            Plan decided = meters.plan.record(() -> engine.plan(snapshot, pending));
            if (backfill == null) {
                return decided;
            }
            Plan lent = Backfill.plan(engine, snapshot, pending, decided, backfill.limits(), backfill.ends(),
                    properties.gangBackfillMargin(), now);
            meters.backfills.increment(lent.assignments().size() - decided.assignments().size());
            return lent;
        });
        Map<UUID, String> preempting = preemption == null ? Map.of() : preemption.decide(seen[0], plan.assignments(),
                pending.stream().filter(j -> !j.isGang() && plan.unplaced().containsKey(j.jobId())
                        && plan.unplaced().get(j.jobId()).kind() == UnplacedKind.DOES_NOT_FIT_NOW).toList(), now);
        PlanWrites writes = PlanWrites.of(plan, byId, preempting, properties.neverFitsBackoff(), reasons, now);
        plan.unplaced().values().forEach(u -> meters.unschedulable(u.kind()));
        PlacementStore.CommitResult committed = meters.commit.record(
                () -> placement.commit(writes.attempts(), writes.deferrals(), properties.leaseTtl()));
        shareGangHolds(pending, plan, now);
        if (!committed.conflicts().isEmpty()) {
            fleet.invalidate(); // another replica changed the machines: read them again
        }
        Set<String> machines = new HashSet<>();
        committed.scheduled().forEach(s -> machines.add(s.machineId()));
        reasons.placed(committed.scheduled().stream().map(PlacementStore.Scheduled::jobId).toList());
        // the fleet is full only if some job lacked room; a commit that lost placements to another replica leaves
        // room this plan counted as taken
        boolean roomLeft = writes.noRoom() == 0 || !committed.conflicts().isEmpty() || seen[0] == null
                || plan.leavesRoomIn(seen[0]);
        var outcome = new ClaimPolicy.Outcome(committed.scheduled().size(), writes.noRoom(), writes.passedOver(),
                lastInClaimOrder(claimed), roomLeft);
        return new Round(claimed.size(), outcome, plan.unplaced().size(), committed.conflicts(), machines);
    }

    /**
     * What backfill needs, read before the plan (outside the fleet's lock) when a due gang is in the batch: the batch's
     * time limits and, when a job of it other than a gang has one, when every live attempt ends by its limit (one read
     * over the live attempts; {@link Backfill}).
     */
    private record BackfillReads(Map<UUID, Duration> limits, Map<String, List<Backfill.Ending>> ends) {
        /** @return null when no job of the batch but a gang has a time limit: none could backfill */
        static BackfillReads of(PlacementStore placement, List<PendingJob> pending, Instant now) {
            Map<UUID, Duration> limits = placement.timeLimits(pending.stream().map(PendingJob::jobId).toList());
            if (pending.stream().noneMatch(j -> !j.isGang() && limits.containsKey(j.jobId()))) {
                return null;
            }
            Map<String, List<Backfill.Ending>> ends = new HashMap<>();
            for (PlacementStore.LiveEnd e : placement.liveEnds(now)) {
                ends.computeIfAbsent(e.machineId(), m -> new ArrayList<>()).add(new Backfill.Ending(e.room(),
                        e.endsAt() == null ? Backfill.Ending.NEVER : e.endsAt().toEpochMilli()));
            }
            return new BackfillReads(limits, ends);
        }
    }

    /**
     * Writes, with the commit, what the plan's gangs hold now (none for a gang placed or not holding), for the other
     * replicas' plans: their claims hold the jobs after the gang's (docs/architecture.md, "Starvation, both ways").
     */
    private void shareGangHolds(List<PendingJob> pending, Plan plan, Instant now) {
        List<UUID> gangs = pending.stream().filter(PendingJob::isGang).map(PendingJob::jobId).toList();
        if (gangs.isEmpty()) {
            return;
        }
        Instant until = fleet.holdsUntil(now);
        placement.gangHolds().replace(gangs, plan.held().stream()
                .map(h -> new GangHoldRows.Held(h.jobId(), h.machineId(), h.amounts(), until)).toList(), now);
    }

    /**
     * Where the last job claimed in the claim's order stands, null when none was: the claim's first jobs, those whose
     * "fits nowhere" backoff ended, are claimed by when it ended, and the next claim must not resume after them.
     */
    static QueuePosition lastInClaimOrder(List<ClaimedJob> claimed) {
        for (int i = claimed.size() - 1; i >= 0; i--) {
            ClaimedJob job = claimed.get(i);
            if (job.shown() == null || job.shown().kind() != UnplacedKind.CAN_NEVER_FIT) {
                return position(job);
            }
        }
        return null;
    }

    /** Where the job stands in the claim's order. */
    static QueuePosition position(ClaimedJob job) {
        return new QueuePosition(job.priority(), job.requeuedAhead(), job.id());
    }
}
