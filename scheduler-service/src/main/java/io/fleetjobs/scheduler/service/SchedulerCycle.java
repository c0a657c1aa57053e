package io.fleetjobs.scheduler.service;

import io.fleetjobs.scheduler.core.Assignment;
import io.fleetjobs.scheduler.core.MachineView;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.core.Plan;
import io.fleetjobs.scheduler.core.Quota;
import io.fleetjobs.scheduler.core.Snapshot;
import io.fleetjobs.scheduler.core.TenantView;
import io.fleetjobs.scheduler.core.Unplaced;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineRow;
import io.fleetjobs.store.PlacementStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One scheduling cycle:
 *
 * <pre>
 *   claim ──▶ snapshot ──▶ plan (pure) ──▶ commit
 *   QUEUED,     READY        filters,        attempts, allocations, machine usage,
 *   not_before  machines,    scorers,        SCHEDULED + history + events;
 *   passed,     tenants'     fair share      unplaced: reason + backoff;
 *   SKIP LOCKED usage                        no room left under lock: re-plan next cycle
 * </pre>
 *
 * Any number of replicas run cycles at once: {@code SKIP LOCKED} gives each its own jobs, machine
 * rows are locked in id order at commit and re-checked there (a job whose machine lost its room is
 * re-planned at once on a fresh snapshot), and the database refuses over-commit.
 * Plain Java over the store, so tests run several cycles side by side without Spring.
 */
public final class SchedulerCycle {
    private final JobStore jobs;
    private final PlacementStore placement;
    private final PlacementEngine engine;
    private final SchedulerProperties properties;
    private final Timer cycleTimer;
    private final Timer claimTimer;
    private final Timer snapshotTimer;
    private final Timer planTimer;
    private final Timer commitTimer;
    private final Counter placements;
    private final Counter conflicts;
    private final MeterRegistry meters;

    public SchedulerCycle(JobStore jobs, PlacementStore placement, PlacementEngine engine, SchedulerProperties properties,
            MeterRegistry meters) {
        this.jobs = jobs;
        this.placement = placement;
        this.engine = engine;
        this.properties = properties;
        this.meters = meters;
        this.cycleTimer = Timer.builder("scheduler.cycle").description("one claim-plan-commit cycle")
                .publishPercentiles(0.5, 0.99).register(meters);
        this.claimTimer = Timer.builder("scheduler.claim").description("claiming a batch of queued jobs").register(meters);
        this.snapshotTimer = Timer.builder("scheduler.snapshot").description("reading machines and tenants").register(meters);
        this.planTimer = Timer.builder("scheduler.plan").description("the pure placement engine").register(meters);
        this.commitTimer = Timer.builder("scheduler.commit").description("writing a plan").register(meters);
        this.placements = Counter.builder("scheduler.placements").description("attempts placed").register(meters);
        this.conflicts = Counter.builder("scheduler.conflicts")
                .description("placements refused at commit because another replica took the room").register(meters);
    }

    /** What a cycle did. */
    public record Result(int claimed, int placed, int deferred, int conflicts) {
        static final Result NOTHING = new Result(0, 0, 0, 0);
    }

    /** Rounds of re-planning of jobs whose machine lost its room to another replica. */
    private static final int REPLANS = 3;

    /**
     * Claims, plans and commits a batch; then re-plans, on a fresh snapshot, the jobs whose machine
     * lost its room to another replica at commit. Each round is a transaction of its own, so that
     * machine rows are always locked in one id order per transaction (no deadlock between replicas).
     */
    public Result runOnce() {
        return cycleTimer.record(() -> {
            Round round = jobs.inTransaction(() -> planAndCommit(claimTimer.record(() -> placement.claim(properties.batchSize()))));
            int claimed = round.claimed;
            int placed = round.placed;
            int deferred = round.deferred;
            int lost = round.conflicts.size();
            for (int r = 0; r < REPLANS && !round.conflicts.isEmpty(); r++) {
                List<UUID> again = round.conflicts;
                round = jobs.inTransaction(() -> planAndCommit(placement.reclaim(again)));
                placed += round.placed;
                deferred += round.deferred;
                lost += round.conflicts.size();
            }
            placements.increment(placed);
            conflicts.increment(lost);
            return new Result(claimed, placed, deferred, lost);
        });
    }

    private record Round(int claimed, int placed, int deferred, List<UUID> conflicts) {
    }

    private Round planAndCommit(List<JobRecord> claimed) {
        if (claimed.isEmpty()) {
            return new Round(0, 0, 0, List.of());
        }
        Map<UUID, JobRecord> byId = new HashMap<>();
        claimed.forEach(j -> byId.put(j.id(), j));
        Instant now = jobs.clock().instant();
        Snapshot snapshot = snapshotTimer.record(() -> snapshot(now));
        Plan plan = planTimer.record(() -> engine.plan(snapshot, pending(claimed)));
        List<PlacementStore.NewAttempt> attempts = new ArrayList<>(plan.assignments().size());
        for (Assignment a : plan.assignments()) {
            attempts.add(new PlacementStore.NewAttempt(byId.get(a.jobId()), a.machineId(), a.cpuMillis(),
                    a.memoryMb(), a.gpuCount()));
        }
        List<PlacementStore.Deferral> deferrals = new ArrayList<>(plan.unplaced().size());
        plan.unplaced().forEach((jobId, why) -> {
            Duration wait = why.kind() == Unplaced.Kind.CAN_NEVER_FIT ? properties.retryNeverFits() : properties.retryNoRoom();
            deferrals.add(new PlacementStore.Deferral(jobId, why.reason(), now.plus(wait)));
            count(why);
        });
        PlacementStore.CommitResult committed = commitTimer.record(
                () -> placement.commit(attempts, deferrals, properties.leaseTtl()));
        return new Round(claimed.size(), committed.scheduled().size(), deferrals.size(), committed.conflicts());
    }

    private Snapshot snapshot(Instant now) {
        List<MachineView> machines = new ArrayList<>();
        for (MachineRow m : placement.schedulableMachines()) {
            Duration age = m.lastHeartbeatAt() == null ? Duration.ofDays(365) : Duration.between(m.lastHeartbeatAt(), now);
            machines.add(new MachineView(m.id(), m.region(), m.labels(), m.gpuType(), m.cpuMillis(), m.memoryMb(),
                    m.gpuCount(), m.allocCpuMillis(), m.allocMemoryMb(), m.allocGpuCount(), m.status(), age));
        }
        Map<UUID, TenantView> tenants = new HashMap<>();
        for (PlacementStore.TenantUsage t : placement.tenantUsage()) {
            tenants.put(t.id(), new TenantView(t.id(), t.weight(), t.usedCpuMillis(), t.usedMemoryMb(), t.usedGpus(),
                    new Quota(t.quotaCpuMillis(), t.quotaMemoryMb(), t.quotaGpuCount())));
        }
        return new Snapshot(machines, tenants, properties.heartbeatFreshness());
    }

    private static List<PendingJob> pending(List<JobRecord> claimed) {
        List<PendingJob> pending = new ArrayList<>(claimed.size());
        for (JobRecord j : claimed) {
            pending.add(PendingJob.of(j.id(), j.tenantId(), j.spec(), j.createdAt().toEpochMilli()));
        }
        return pending;
    }

    private void count(Unplaced why) {
        Counter.builder("scheduler.unschedulable").description("jobs a cycle could not place, by kind")
                .tag("kind", why.kind().name()).register(meters).increment();
    }
}
