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
 *   passed,     usage        fair share      unplaced: reason (+ backoff if it can never fit);
 *   after the   (cached)                     no room left under lock: re-plan
 *   resume point,
 *   SKIP LOCKED
 * </pre>
 *
 * <p>Jobs that find no room now (or whose tenant is at its quota) are not written back with a backoff: the next claims resume after
 * the last job this one claimed (the resume point), passing over them in memory, so that a head of
 * jobs that do not fit now (GPU jobs while the GPUs are busy) neither blocks the jobs behind it nor
 * costs a row write per job and cycle. The claims go back to the head of the queue when room
 * appears ({@link #lookAgain}) or {@code retryNoRoom} after the first job was passed over. A job
 * that could never fit on any machine gets a backoff ({@code retryNeverFits}) in its row instead.
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
    /** The smallest claim while the fleet is full. */
    static final int MIN_CLAIM = 32;

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
    /**
     * How many jobs the next cycle claims: the batch size, shrunk while cycles find the fleet nearly
     * full. A claimed job that finds no room is written back with its reason and a backoff (and written
     * again when room appears), so claiming 500 jobs into a fleet with room for 20 costs 480 row writes
     * for nothing. After a cycle that placed some jobs and left others for want of room, the next claims
     * twice what it placed (at least {@link #MIN_CLAIM}); after one that left nothing for want of room,
     * the claim doubles back towards the batch size; after one that placed nothing, the next claims the
     * whole batch, so that a head of jobs that fit nowhere now (GPU jobs while the GPUs are busy) is
     * passed over as fast as before and the jobs behind it that fit are reached.
     */
    private volatile int claimLimit;
    /** The last job of a claim that left jobs without room, or null (claim from the head); guarded by {@link #lock}. */
    private ClaimedJob resumeAfter;
    /** When the claims began passing over jobs; guarded by {@link #lock}. */
    private Instant passingSince;
    /**
     * Counts the restarts from the head; guarded by {@link #lock}. A claim that began before the last
     * restart does not move the resume point: it may have skipped (locked elsewhere) a job that the
     * restart is for.
     */
    private long restarts;
    /** Guarded by {@link #lock}. */
    private Cache cache;
    /** Guarded by {@link #lock}. */
    private Tenants tenants;
    /** Whether a worker is reading the tenants' usage outside the lock; guarded by {@link #lock}. */
    private boolean refreshingTenants;
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
        this.claimLimit = properties.batchSize();
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
            lookAgain(); // a round's reservations may belong to a rolled-back transaction, its jobs not looked at
            throw e;
        }
    }

    private Result rounds() {
        Resume from = resumePoint(jobs.clock().instant());
        Round round = transaction(() -> placement.claim(claimLimit, from.after()));
        claimLimit = nextClaim(claimLimit, round.placed, round.noRoom, properties.batchSize());
        if (round.passedOver > 0) {
            passOver(round.last, from.restarts());
        }
        int claimed = round.claimed;
        int placed = round.placed;
        int deferred = round.deferred;
        int lost = round.conflicts.size();
        boolean unsettled = false;
        for (int r = 0; r < REPLANS && !round.conflicts.isEmpty(); r++) {
            List<UUID> again = round.conflicts;
            round = transaction(() -> placement.reclaim(again));
            unsettled |= round.claimed < again.size(); // some held by another worker, which may drop them too
            placed += round.placed;
            deferred += round.deferred;
            lost += round.conflicts.size();
        }
        if (unsettled || !round.conflicts.isEmpty()) {
            // jobs this cycle neither placed nor found without room may lie behind the resume point: the
            // next claim starts at the head, so that none waits for the restart after retryNoRoom
            restartClaims();
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

    /** Where a claim starts (after {@code after}, or at the head when null), as of {@code restarts} restarts. */
    private record Resume(ClaimedJob after, long restarts) {
    }

    /** Where the next claim starts: after the resume point while it is younger than {@code retryNoRoom}. */
    private Resume resumePoint(Instant now) {
        synchronized (lock) {
            if (resumeAfter != null && !now.isBefore(passingSince.plus(properties.retryNoRoom()))) {
                restartClaims(); // look at the jobs passed over again, room or not
            }
            return new Resume(resumeAfter, restarts);
        }
    }

    /**
     * The jobs up to {@code last} (in the claim's order) that are still QUEUED are passed over until
     * room appears, unless the claims restarted since the claim that found them began.
     */
    private void passOver(ClaimedJob last, long claimedAtRestarts) {
        synchronized (lock) {
            if (claimedAtRestarts != restarts) {
                return;
            }
            if (resumeAfter == null) {
                resumeAfter = last;
                passingSince = jobs.clock().instant();
            } else if (claimOrder(last, resumeAfter) > 0) {
                resumeAfter = last;
            }
        }
    }

    /** The claim's order: priority, highest first, then id (as PostgreSQL orders uuids: unsigned). */
    static int claimOrder(ClaimedJob a, ClaimedJob b) {
        int byPriority = Integer.compare(b.priority(), a.priority());
        if (byPriority != 0) {
            return byPriority;
        }
        int high = Long.compareUnsigned(a.id().getMostSignificantBits(), b.id().getMostSignificantBits());
        return high != 0 ? high : Long.compareUnsigned(a.id().getLeastSignificantBits(), b.id().getLeastSignificantBits());
    }

    /**
     * Room appeared (an attempt ended, a machine joined): the next claim starts from the head of the
     * queue again, on machines read afresh.
     */
    public void lookAgain() {
        restartClaims();
        invalidate();
    }

    private void restartClaims() {
        synchronized (lock) {
            resumeAfter = null;
            restarts++;
        }
    }

    /** Forgets the cached snapshot: the next cycle reads machines and tenants again. */
    public void invalidate() {
        synchronized (lock) {
            cache = null;
            if (tenants != null) {
                tenants.readAt = Instant.EPOCH; // read again, outside the lock
            }
        }
    }

    /**
     * @param noRoom jobs left because no machine has room for them now
     * @param passedOver jobs left to wait in memory for room (no room now, or their tenant at its quota)
     * @param last the last job claimed (in the claim's order), or null when none was
     */
    private record Round(int claimed, int placed, int deferred, int noRoom, int passedOver, List<UUID> conflicts,
            Set<String> machines, ClaimedJob last) {
    }

    /** The claim after a cycle that placed {@code placed} jobs and left {@code noRoom} for want of room. */
    static int nextClaim(int claim, int placed, int noRoom, int batchSize) {
        if (placed == 0) {
            return batchSize;
        }
        int next = noRoom > 0 ? Math.max(MIN_CLAIM, 2 * placed) : 2 * claim;
        return Math.min(batchSize, next);
    }

    private Round planAndCommit(List<ClaimedJob> claimed, Object token) {
        if (claimed.isEmpty()) {
            return new Round(0, 0, 0, 0, 0, List.of(), Set.of(), null);
        }
        Map<UUID, ClaimedJob> byId = new HashMap<>();
        claimed.forEach(j -> byId.put(j.id(), j));
        Instant now = jobs.clock().instant();
        List<PlacementStore.NewAttempt> attempts;
        List<PlacementStore.Deferral> deferrals;
        int noRoom = 0;
        int passedOver = 0;
        refreshTenantsIfOld(now);
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
                if (why.kind() == Unplaced.Kind.DOES_NOT_FIT_NOW) {
                    noRoom++;
                }
                // no room now, or over quota until the tenant's attempts end: no backoff, the claims pass
                // over it until room appears (see the class comment)
                Instant notBefore = null;
                if (why.kind() == Unplaced.Kind.CAN_NEVER_FIT) {
                    notBefore = now.plus(properties.retryNeverFits());
                } else {
                    passedOver++;
                }
                deferrals.add(new PlacementStore.Deferral(e.getKey(), why.reason(), notBefore));
                Counter.builder("scheduler.unschedulable").description("jobs a cycle could not place, by kind")
                        .tag("kind", why.kind().name()).register(meters).increment();
            }
            reserve(cache, tenants, attempts);
            inFlight.put(token, attempts);
        }
        PlacementStore.CommitResult committed = commitTimer.record(
                () -> placement.commit(attempts, deferrals, properties.leaseTtl()));
        if (!committed.conflicts().isEmpty()) {
            invalidate(); // another replica changed the machines: read them again
        }
        Set<String> machines = new HashSet<>();
        committed.scheduled().forEach(sch -> machines.add(sch.machineId()));
        return new Round(claimed.size(), committed.scheduled().size(), deferrals.size(), noRoom, passedOver,
                committed.conflicts(), machines, claimed.get(claimed.size() - 1));
    }

    /**
     * Machines as last read, plus this replica's placements since. The views are built once per read
     * and only the views of machines that got placements are built again, so that a cycle does not
     * rebuild ten thousand views to place a batch on a handful. Their heartbeat ages are taken as they
     * will be when the cache expires (read time plus {@code snapshotMaxAge}): a machine about to turn
     * stale is passed over up to that much early, never used late.
     */
    private static final class Cache {
        final Instant readAt;
        final MachineView[] views;
        final Map<String, Integer> position = new HashMap<>();

        Cache(Instant readAt, Duration maxAge, List<MachineRow> machines) {
            this.readAt = readAt;
            Instant expires = readAt.plus(maxAge);
            this.views = new MachineView[machines.size()];
            for (int i = 0; i < views.length; i++) {
                MachineRow m = machines.get(i);
                Duration age = m.lastHeartbeatAt() == null ? null : Duration.between(m.lastHeartbeatAt(), expires);
                views[i] = new MachineView(m.id(), m.region(), m.labels(), m.gpuType(), m.cpuMillis(), m.memoryMb(),
                        m.gpuCount(), m.allocCpuMillis(), m.allocMemoryMb(), m.allocGpuCount(), m.status(),
                        age == null ? Duration.ofDays(365) : age);
                position.put(m.id(), i);
            }
        }
    }

    /** Tenants' weights, quotas and usage as last read, plus this replica's placements since. */
    private static final class Tenants {
        Instant readAt;
        final Map<UUID, long[]> used = new HashMap<>();        // tenant id -> cpu, memory, gpus
        final Map<UUID, PlacementStore.TenantUsage> tenants = new HashMap<>();

        Tenants(Instant readAt, List<PlacementStore.TenantUsage> usage) {
            this.readAt = readAt;
            for (PlacementStore.TenantUsage t : usage) {
                tenants.put(t.id(), t);
                used.put(t.id(), new long[] {t.usedCpuMillis(), t.usedMemoryMb(), t.usedGpus()});
            }
        }
    }

    /** Adds planned placements to the cached views (their machines' and tenants' usage). */
    private static void reserve(Cache cache, Tenants tenants, List<PlacementStore.NewAttempt> attempts) {
        Map<Integer, long[]> added = new HashMap<>();
        for (PlacementStore.NewAttempt a : attempts) {
            Integer i = cache == null ? null : cache.position.get(a.machineId());
            if (i != null) {
                long[] m = added.computeIfAbsent(i, k -> new long[3]);
                m[0] += a.cpuMillis();
                m[1] += a.memoryMb();
                m[2] += a.gpuCount();
            }
            if (tenants != null) {
                long[] t = tenants.used.computeIfAbsent(a.job().tenantId(), id -> new long[3]);
                t[0] += a.cpuMillis();
                t[1] += a.memoryMb();
                t[2] += a.gpuCount();
            }
        }
        added.forEach((i, m) -> {
            MachineView v = cache.views[i];
            cache.views[i] = new MachineView(v.id(), v.region(), v.labels(), v.gpuType(), v.cpuMillis(), v.memoryMb(),
                    v.gpuCount(), v.allocCpuMillis() + m[0], v.allocMemoryMb() + m[1], v.allocGpuCount() + (int) m[2],
                    v.status(), v.heartbeatAge());
        });
    }

    private boolean old(Instant readAt, Instant now) {
        return Duration.between(readAt, now).compareTo(properties.snapshotMaxAge()) > 0 || now.isBefore(readAt);
    }

    /**
     * Reads the tenants' usage again when it has grown old, outside the lock: the read sums over
     * every job on a machine, and the other workers go on planning on the old figures meanwhile
     * instead of waiting for it. Usage only orders tenants by dominant share and holds jobs at their
     * quota, which lag other replicas' placements anyway; placements committed while the read runs
     * may be missing from it until the next read. Room on machines is never taken from this read:
     * machines are read under the lock, with every uncommitted plan of this replica reserved.
     */
    private void refreshTenantsIfOld(Instant now) {
        synchronized (lock) {
            if (tenants == null || refreshingTenants || !old(tenants.readAt, now)) {
                return; // none at all is read under the lock, by snapshot()
            }
            refreshingTenants = true;
        }
        try {
            Tenants fresh = new Tenants(now, placement.tenantUsage());
            synchronized (lock) {
                inFlight.values().forEach(planned -> reserve(null, fresh, planned));
                tenants = fresh;
            }
        } finally {
            synchronized (lock) {
                refreshingTenants = false;
            }
        }
    }

    private Snapshot snapshot(Instant now) {
        if (cache == null || old(cache.readAt, now)) {
            cache = new Cache(now, properties.snapshotMaxAge(), placement.schedulableMachines());
            // what other workers planned but have not committed is not in what was just read
            inFlight.values().forEach(planned -> reserve(cache, null, planned));
        }
        if (tenants == null) {
            tenants = new Tenants(now, placement.tenantUsage());
            inFlight.values().forEach(planned -> reserve(null, tenants, planned));
        }
        Map<UUID, TenantView> views = new HashMap<>();
        tenants.tenants.forEach((id, t) -> {
            long[] u = tenants.used.get(id);
            views.put(id, new TenantView(id, t.weight(), u[0], u[1], (int) u[2],
                    new Quota(t.quotaCpuMillis(), t.quotaMemoryMb(), t.quotaGpuCount())));
        });
        return new Snapshot(Arrays.asList(cache.views), views, properties.heartbeatFreshness());
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
