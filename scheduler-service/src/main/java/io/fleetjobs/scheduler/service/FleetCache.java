package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.HeartbeatCadence;
import io.fleetjobs.scheduler.core.Assignment;
import io.fleetjobs.scheduler.core.GpuDemand;
import io.fleetjobs.scheduler.core.MachineView;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.scheduler.core.Plan;
import io.fleetjobs.scheduler.core.Quota;
import io.fleetjobs.scheduler.core.Reservations;
import io.fleetjobs.scheduler.core.Snapshot;
import io.fleetjobs.scheduler.core.TenantView;
import io.fleetjobs.store.GangHoldRows;
import io.fleetjobs.store.MachineRow;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.store.PlacementStore.TenantUsage;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The snapshot a replica plans on: machines and tenants' usage as read at most every
 * {@code snapshotMaxAge} ({@code fairShareMaxAge} for the usage when no tenant has a quota), plus this replica's
 * placements since. It may lag other replicas' placements;
 * that only costs a conflict at commit (after which the cycle calls {@link #invalidate}), never
 * correctness.
 *
 * <p>Several workers of one replica plan at once: each plans under a lock on this cache, in which the
 * placements of the others' uncommitted plans are reserved ({@link Reservations}), so that they do not
 * race each other for room; a fresh read gets those reservations added again, and those released while it ran
 * ({@link Reservations#heldSince}: a commit that ended after the read's snapshot is in neither). The room a due gang
 * holds in one worker's plan ({@link Plan#held}) stays taken in the others' plans for twice {@code retryNoRoom}, renewed
 * each time a plan of the gang holds it again: their batches are the jobs claimed after the gang's, and would otherwise
 * take the machines it is collecting. Other replicas' holds come with each read of the machines ({@code gang_holds},
 * which {@link SchedulerCycle} writes with each commit of a plan that looked at a gang).
 */
final class FleetCache {
    private final Supplier<List<MachineRow>> readMachines;
    private final Supplier<List<TenantUsage>> readTenants;
    private final Function<Instant, List<GangHoldRows.Held>> readHolds;
    private final SchedulerProperties properties;
    /** How long after its last heartbeat a machine still takes new work (grows with the fleet's cadence). */
    private volatile Supplier<Duration> freshness;
    private final Timer snapshotTimer;
    private final Reservations inFlight = new Reservations();
    private final Object lock = new Object();
    /**
     * What the jobs claimed lately asked of each GPU model (a job waiting counts each time it is claimed: the demand
     * that waits weighs more); guarded by {@link #lock}.
     */
    private final GpuDemand.Tracker demand = new GpuDemand.Tracker(DEMAND_WINDOW_GPUS);
    /** Guarded by {@link #lock}. */
    private Machines machines;
    /** Guarded by {@link #lock}. */
    private Tenants tenants;
    /** Whether a worker is reading the tenants' usage outside the lock; guarded by {@link #lock}. */
    private boolean refreshingTenants;
    /**
     * The room due gangs kept in this replica's plans without fitting whole, by gang, until when: the other workers'
     * plans, whose batches do not hold the gang, see it taken; guarded by {@link #lock}.
     */
    private final Map<UUID, HeldRoom> gangsHold = new HashMap<>();
    /** The same, as every replica wrote it ({@code gang_holds}), read with the machines; guarded by {@link #lock}. */
    private Map<UUID, HeldRoom> gangsHoldShared = new HashMap<>();

    /** Room a gang holds (a replica's amounts by machine), until {@code until} unless a plan of the gang holds it again. */
    private record HeldRoom(Map<String, Amounts> room, Instant until) {
    }

    /** About how many GPUs of recent demand count in {@link #demand}. */
    static final long DEMAND_WINDOW_GPUS = 5000;

    FleetCache(PlacementStore placement, SchedulerProperties properties, Timer snapshotTimer) {
        this(placement::schedulableMachines, placement::tenantUsage, placement.gangHolds()::current, properties,
                snapshotTimer);
    }

    /**
     * @param readMachines the schedulable machines as of now, @param readTenants the tenants' usage as of now,
     * @param readHolds the room gangs hold as of an instant, as every replica wrote it
     */
    FleetCache(Supplier<List<MachineRow>> readMachines, Supplier<List<TenantUsage>> readTenants,
            Function<Instant, List<GangHoldRows.Held>> readHolds, SchedulerProperties properties, Timer snapshotTimer) {
        this.readMachines = readMachines;
        this.readTenants = readTenants;
        this.readHolds = readHolds;
        this.properties = properties;
        this.snapshotTimer = snapshotTimer;
        this.freshness = properties::heartbeatFreshness;
    }

    /**
     * Machines take new work for {@code heartbeat-freshness} grown by what the agents' interval grew by
     * ({@link HeartbeatCadence#freshness}), the cadence as {@code cadence} gives it now.
     */
    void followCadence(Supplier<HeartbeatCadence> cadence, Duration minInterval) {
        freshness = () -> cadence.get().freshness(properties.heartbeatFreshness(), minInterval);
    }

    /**
     * Plans on the snapshot as of {@code now} and reserves the plan's placements under {@code token}
     * until {@link #release}; the cache keeps them after that (committed, a fresh read has them).
     */
    Plan plan(Object token, Instant now, List<PendingJob> pending, Function<Snapshot, Plan> planner) {
        refreshTenantsIfOld(now);
        synchronized (lock) {
            pending.forEach(demand::record);
            // a gang in this batch plans on its own room again; a hold not renewed in time lapses
            Set<UUID> batch = new HashSet<>();
            pending.forEach(job -> batch.add(job.jobId()));
            gangsHold.keySet().removeAll(batch);
            gangsHoldShared.keySet().removeAll(batch); // this plan's commit writes their rows anew
            gangsHold.values().removeIf(held -> !now.isBefore(held.until()));
            Snapshot snapshot = snapshotTimer.record(() -> snapshot(now, batch));
            Plan plan = planner.apply(snapshot);
            add(plan.assignments(), machines, tenants);
            inFlight.reserve(token, plan.assignments());
            Instant until = holdsUntil(now);
            plan.held().forEach(h -> gangsHold.computeIfAbsent(h.jobId(), gang -> new HeldRoom(new HashMap<>(), until))
                    .room().put(h.machineId(), h.amounts()));
            return plan;
        }
    }

    /** The commit under {@code token} has ended, whichever way. */
    void release(Object token) {
        inFlight.release(token);
    }

    /**
     * Forgets what was read (room appeared, or another replica took some): the next plan reads the machines again, and
     * the tenants' usage if some tenant has a quota (jobs held at their quota must see room as soon as the machines do);
     * without quotas the usage only orders tenants by dominant share, and waits out {@code fairShareMaxAge}.
     */
    void invalidate() {
        synchronized (lock) {
            machines = null;
            if (tenants != null && tenants.anyQuota) {
                tenants.readAt = Instant.EPOCH; // read again, outside the lock
            }
        }
    }

    /** How long a plan's hold lasts unless a plan of its gang holds it again (the gang is claimed again within one). */
    Instant holdsUntil(Instant now) {
        return now.plus(properties.retryNoRoom().multipliedBy(2));
    }

    /** @param batch the jobs of the plan: a gang among them plans on the room it holds */
    private Snapshot snapshot(Instant now, Set<UUID> batch) {
        if (machines == null || old(machines.readAt, now, properties.snapshotMaxAge())) {
            Reservations.Mark before = inFlight.mark();
            machines = new Machines(now, properties.snapshotMaxAge(), readMachines.get());
            Map<UUID, HeldRoom> shared = new HashMap<>();
            for (GangHoldRows.Held h : readHolds.apply(now)) {
                shared.computeIfAbsent(h.jobId(), gang -> new HeldRoom(new HashMap<>(), h.until()))
                        .room().put(h.machineId(), h.amounts());
            }
            gangsHoldShared = shared;
            // what other workers planned is not in what was just read, nor, if their commit ended during the read,
            // what they released meanwhile
            add(inFlight.heldSince(before), machines, null);
        }
        if (tenants == null) {
            Reservations.Mark before = inFlight.mark();
            tenants = new Tenants(now, readTenants.get());
            add(inFlight.heldSince(before), null, tenants);
        }
        Map<UUID, HeldRoom> holds = new HashMap<>(gangsHoldShared);
        holds.putAll(gangsHold); // this replica's own, as it last planned them
        holds.keySet().removeAll(batch);
        holds.values().removeIf(held -> !now.isBefore(held.until()));
        return new Snapshot(holds.isEmpty() ? Arrays.asList(machines.views) : machines.holding(holds.values()),
                tenants.views(), freshness.get(), demand.current());
    }

    /**
     * Reads the tenants' usage again when it has grown old, outside the lock: the read sums over every
     * job on a machine, and the other workers go on planning on the old figures meanwhile. Usage only
     * orders tenants by dominant share and holds jobs at their quota, which lag other replicas'
     * placements anyway. Room on machines is never taken from this read: machines are read under the
     * lock, with every uncommitted plan of this replica reserved.
     */
    private void refreshTenantsIfOld(Instant now) {
        synchronized (lock) {
            if (tenants == null || refreshingTenants || !tenants.old(now, properties)) {
                return; // none at all is read under the lock, by snapshot()
            }
            refreshingTenants = true;
        }
        try {
            Reservations.Mark before = inFlight.mark();
            Tenants fresh = new Tenants(now, readTenants.get());
            synchronized (lock) {
                add(inFlight.heldSince(before), null, fresh);
                tenants = fresh;
            }
        } finally {
            synchronized (lock) {
                refreshingTenants = false;
            }
        }
    }

    private static boolean old(Instant readAt, Instant now, Duration maxAge) {
        return Duration.between(readAt, now).compareTo(maxAge) > 0 || now.isBefore(readAt);
    }

    /** Adds placements to the cached machines' allocations and tenants' usage (either may be null). */
    private static void add(List<Assignment> placed, Machines machines, Tenants tenants) {
        if (placed.isEmpty()) {
            return;
        }
        if (machines != null) {
            Map<String, Integer> attempts = Reservations.attemptsByMachine(placed);
            Reservations.byMachine(placed).forEach((id, more) -> machines.allocate(id, more, attempts.getOrDefault(id, 0)));
        }
        if (tenants != null) {
            Reservations.byTenant(placed).forEach((id, amounts) -> tenants.used.merge(id, amounts, Amounts::plus));
        }
    }

    /**
     * Machines as last read. The views are built once per read and only those of machines that got
     * placements are built again, so that a cycle does not rebuild ten thousand views to place a batch
     * on a handful. Heartbeat ages are taken as they will be when the read expires (read time plus
     * {@code snapshotMaxAge}): a machine about to turn stale is passed over up to that much early,
     * never used late.
     */
    private static final class Machines {
        final Instant readAt;
        final MachineView[] views;
        final Map<String, Integer> position = new HashMap<>();

        Machines(Instant readAt, Duration maxAge, List<MachineRow> rows) {
            this.readAt = readAt;
            Instant expires = readAt.plus(maxAge);
            this.views = new MachineView[rows.size()];
            for (int i = 0; i < views.length; i++) {
                MachineRow m = rows.get(i);
                Duration age = m.lastHeartbeatAt() == null ? Duration.ofDays(365) : Duration.between(m.lastHeartbeatAt(), expires);
                views[i] = new MachineView(m.machine(), age, m.sandboxed());
                position.put(m.id(), i);
            }
        }

        void allocate(String machineId, Amounts more, int attempts) {
            Integer i = position.get(machineId);
            if (i == null) {
                return;
            }
            views[i] = views[i].allocating(more, attempts);
        }

        /** The views with the room gangs hold taken, each held replica as an attempt; the cached views unchanged. */
        List<MachineView> holding(Collection<HeldRoom> holds) {
            MachineView[] copy = views.clone();
            for (HeldRoom held : holds) {
                held.room().forEach((machineId, amounts) -> {
                    Integer i = position.get(machineId);
                    if (i != null) {
                        copy[i] = copy[i].allocating(amounts, 1);
                    }
                });
            }
            return Arrays.asList(copy);
        }
    }

    /** Tenants' weights and quotas as last read, and their usage plus this replica's placements since. */
    private static final class Tenants {
        Instant readAt;
        final Map<UUID, TenantUsage> read = new HashMap<>();
        final Map<UUID, Amounts> used = new HashMap<>();
        /** Whether some tenant has a quota: the usage then holds jobs back, not only orders tenants. */
        final boolean anyQuota;

        Tenants(Instant readAt, List<TenantUsage> usage) {
            this.readAt = readAt;
            boolean quota = false;
            for (TenantUsage t : usage) {
                read.put(t.id(), t);
                used.put(t.id(), t.used());
                quota |= t.quotaCpuMillis() != null || t.quotaMemoryMb() != null || t.quotaGpuCount() != null;
            }
            this.anyQuota = quota;
        }

        boolean old(Instant now, SchedulerProperties properties) {
            return FleetCache.old(readAt, now, anyQuota ? properties.snapshotMaxAge() : properties.fairShareMaxAge());
        }

        Map<UUID, TenantView> views() {
            Map<UUID, TenantView> views = new HashMap<>();
            read.forEach((id, t) -> {
                Amounts u = used.get(id);
                views.put(id, new TenantView(id, t.weight(), u.cpuMillis(), u.memoryMb(), u.gpus(),
                        new Quota(t.quotaCpuMillis(), t.quotaMemoryMb(), t.quotaGpuCount())));
            });
            return views;
        }
    }
}
