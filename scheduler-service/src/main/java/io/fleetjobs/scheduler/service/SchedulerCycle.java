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
import io.fleetjobs.store.ClaimedJob;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineRow;
import io.fleetjobs.store.PlacementStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One scheduling cycle:
 *
 * <pre>
 *   claim ──▶ snapshot ──▶ plan (pure) ──▶ commit
 *   QUEUED,     machines,    filters,        attempts, allocations, machine usage,
 *   not_before  tenants'     scorers,        SCHEDULED + history + events;
 *   passed,     usage        fair share      unplaced: reason + backoff;
 *   SKIP LOCKED (cached)                     no room left under lock: re-plan
 * </pre>
 *
 * Any number of replicas run cycles at once: {@code SKIP LOCKED} gives each its own jobs, machine
 * rows are locked in id order at commit and re-checked there (a job whose machine lost its room is
 * re-planned at once on a fresh snapshot), and the database refuses over-commit.
 *
 * <p>The snapshot of machines and tenants' usage is read at most every {@code snapshotMaxAge} and
 * kept current in between with this replica's own placements. It may lag other replicas'
 * placements; that only costs a conflict at commit (which forces a fresh read), never correctness.
 *
 * <p>Several workers of one replica may run cycles at once on one instance: each claims its own
 * jobs, and plans under a lock on the shared cached view, in which the placements of the others'
 * uncommitted plans are already reserved, so that workers of one replica do not race each other for
 * room; their transactions overlap in the database (see {@link PlacementStore#commit}).
 *
 * <p>Plain Java over the store, so tests run several cycles side by side without Spring.
 */
public final class SchedulerCycle {
    /** Rounds of re-planning of jobs whose machine lost its room to another replica. */
    private static final int REPLANS = 3;

    private final JobStore jobs;
    private final PlacementStore placement;
    private final PlacementEngine engine;
    private final SchedulerProperties properties;
    private final MeterRegistry meters;
    private final Timer cycleTimer;
    private final Timer claimTimer;
    private final Timer snapshotTimer;
    private final Timer planTimer;
    private final Timer commitTimer;
    private final Counter placements;
    private final Counter conflicts;
    private final Consumer<Collection<String>> placedOn;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private Cache cache;
    /** Placements planned by workers whose transaction has not ended yet, by round; guarded by {@link #lock}. */
    private final Map<Object, List<PlacementStore.NewAttempt>> inFlight = new HashMap<>();

    public SchedulerCycle(JobStore jobs, PlacementStore placement, PlacementEngine engine, SchedulerProperties properties,
            MeterRegistry meters) {
        this(jobs, placement, engine, properties, meters, machines -> { });
    }

    /** @param placedOn told, after each commit, the machines that got new attempts (to wake their agents) */
    public SchedulerCycle(JobStore jobs, PlacementStore placement, PlacementEngine engine, SchedulerProperties properties,
            MeterRegistry meters, Consumer<Collection<String>> placedOn) {
        this.placedOn = placedOn;
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
    }

    /**
     * Claims, plans and commits a batch; then re-plans, on a fresh snapshot, the jobs whose machine
     * lost its room to another replica at commit. Each round is a transaction of its own, so that
     * machine rows are always locked in one id order per transaction (no deadlock between replicas).
     */
    public Result runOnce() {
        try {
            return cycleTimer.record(this::rounds);
        } catch (RuntimeException e) {
            invalidate(); // a round's reservations may belong to a rolled-back transaction
            throw e;
        }
    }

    private Result rounds() {
        Round round = transaction(() -> placement.claim(properties.batchSize()));
        int claimed = round.claimed;
        int placed = round.placed;
        int deferred = round.deferred;
        int lost = round.conflicts.size();
        for (int r = 0; r < REPLANS && !round.conflicts.isEmpty(); r++) {
            List<UUID> again = round.conflicts;
            round = transaction(() -> placement.reclaim(again));
            placed += round.placed;
            deferred += round.deferred;
            lost += round.conflicts.size();
        }
        placements.increment(placed);
        conflicts.increment(lost);
        return new Result(claimed, placed, deferred, lost);
    }

    /**
     * One round in a transaction of its own; its placements stay reserved for the other workers'
     * plans until the transaction has ended (committed: they are in what a fresh read sees).
     */
    private Round transaction(java.util.function.Supplier<List<ClaimedJob>> claim) {
        Object token = new Object();
        Round round;
        try {
            round = jobs.inTransaction(() -> planAndCommit(claimTimer.record(claim::get), token));
        } finally {
            synchronized (lock) {
                inFlight.remove(token);
            }
        }
        placedOn.accept(round.machines);
        return round;
    }

    /** Forgets the cached snapshot: the next cycle reads machines and tenants again. */
    public void invalidate() {
        synchronized (lock) {
            cache = null;
        }
    }

    private record Round(int claimed, int placed, int deferred, List<UUID> conflicts, Set<String> machines) {
    }

    private Round planAndCommit(List<ClaimedJob> claimed, Object token) {
        if (claimed.isEmpty()) {
            return new Round(0, 0, 0, List.of(), Set.of());
        }
        Map<UUID, ClaimedJob> byId = new HashMap<>();
        claimed.forEach(j -> byId.put(j.id(), j));
        Instant now = jobs.clock().instant();
        List<PlacementStore.NewAttempt> attempts;
        List<PlacementStore.Deferral> deferrals;
        synchronized (lock) {
            Snapshot snapshot = snapshotTimer.record(() -> snapshot(now));
            Plan plan = planTimer.record(() -> engine.plan(snapshot, pending(claimed)));
            attempts = new ArrayList<>(plan.assignments().size());
            for (Assignment a : plan.assignments()) {
                attempts.add(new PlacementStore.NewAttempt(byId.get(a.jobId()), a.machineId(), a.cpuMillis(),
                        a.memoryMb(), a.gpuCount()));
            }
            deferrals = new ArrayList<>(plan.unplaced().size());
            for (Map.Entry<UUID, Unplaced> e : plan.unplaced().entrySet()) {
                Unplaced why = e.getValue();
                Duration wait = why.kind() == Unplaced.Kind.CAN_NEVER_FIT ? properties.retryNeverFits() : properties.retryNoRoom();
                deferrals.add(new PlacementStore.Deferral(e.getKey(), why.reason(), now.plus(wait)));
                Counter.builder("scheduler.unschedulable").description("jobs a cycle could not place, by kind")
                        .tag("kind", why.kind().name()).register(meters).increment();
            }
            reserve(cache, attempts);
            inFlight.put(token, attempts);
        }
        PlacementStore.CommitResult committed = commitTimer.record(
                () -> placement.commit(attempts, deferrals, properties.leaseTtl()));
        if (!committed.conflicts().isEmpty()) {
            invalidate(); // another replica changed the machines: read them again
        }
        Set<String> machines = new HashSet<>();
        committed.scheduled().forEach(sch -> machines.add(sch.machineId()));
        return new Round(claimed.size(), committed.scheduled().size(), deferrals.size(), committed.conflicts(), machines);
    }

    /** Machines and tenants' usage as last read, plus this replica's placements since. */
    private static final class Cache {
        final Instant readAt;
        final List<MachineRow> machines;
        final Map<String, long[]> allocated = new HashMap<>(); // machine id -> cpu, memory, gpus
        final Map<UUID, long[]> used = new HashMap<>();        // tenant id -> cpu, memory, gpus
        final Map<UUID, PlacementStore.TenantUsage> tenants = new HashMap<>();

        Cache(Instant readAt, List<MachineRow> machines, List<PlacementStore.TenantUsage> tenants) {
            this.readAt = readAt;
            this.machines = machines;
            for (MachineRow m : machines) {
                allocated.put(m.id(), new long[] {m.allocCpuMillis(), m.allocMemoryMb(), m.allocGpuCount()});
            }
            for (PlacementStore.TenantUsage t : tenants) {
                this.tenants.put(t.id(), t);
                used.put(t.id(), new long[] {t.usedCpuMillis(), t.usedMemoryMb(), t.usedGpus()});
            }
        }
    }

    /** Adds planned placements to a cached view (their machines' and tenants' usage). */
    private static void reserve(Cache cache, List<PlacementStore.NewAttempt> attempts) {
        if (cache == null) {
            return;
        }
        for (PlacementStore.NewAttempt a : attempts) {
            long[] m = cache.allocated.get(a.machineId());
            if (m != null) {
                m[0] += a.cpuMillis();
                m[1] += a.memoryMb();
                m[2] += a.gpuCount();
            }
            long[] t = cache.used.computeIfAbsent(a.job().tenantId(), id -> new long[3]);
            t[0] += a.cpuMillis();
            t[1] += a.memoryMb();
            t[2] += a.gpuCount();
        }
    }

    private Snapshot snapshot(Instant now) {
        if (cache == null || Duration.between(cache.readAt, now).compareTo(properties.snapshotMaxAge()) > 0
                || now.isBefore(cache.readAt)) {
            cache = new Cache(now, placement.schedulableMachines(), placement.tenantUsage());
            // what other workers planned but have not committed is not in what was just read
            inFlight.values().forEach(planned -> reserve(cache, planned));
        }
        List<MachineView> machines = new ArrayList<>(cache.machines.size());
        for (MachineRow m : cache.machines) {
            long[] a = cache.allocated.get(m.id());
            Duration age = m.lastHeartbeatAt() == null ? Duration.ofDays(365) : Duration.between(m.lastHeartbeatAt(), now);
            machines.add(new MachineView(m.id(), m.region(), m.labels(), m.gpuType(), m.cpuMillis(), m.memoryMb(),
                    m.gpuCount(), a[0], a[1], (int) a[2], m.status(), age));
        }
        Map<UUID, TenantView> tenants = new HashMap<>();
        cache.tenants.forEach((id, t) -> {
            long[] u = cache.used.get(id);
            tenants.put(id, new TenantView(id, t.weight(), u[0], u[1], (int) u[2],
                    new Quota(t.quotaCpuMillis(), t.quotaMemoryMb(), t.quotaGpuCount())));
        });
        return new Snapshot(machines, tenants, properties.heartbeatFreshness());
    }

    private static List<PendingJob> pending(List<ClaimedJob> claimed) {
        List<PendingJob> pending = new ArrayList<>(claimed.size());
        for (ClaimedJob j : claimed) {
            List<String> gpuTypes = j.gpuType() == null ? List.of() : Arrays.asList(j.gpuType().split("\\|"));
            pending.add(new PendingJob(j.id(), j.tenantId(), j.priority(), j.cpuMillis(), j.memoryMb(), j.gpuCount(),
                    gpuTypes, j.region(), j.labels(), j.strategy(), j.createdAt().toEpochMilli()));
        }
        return pending;
    }
}
