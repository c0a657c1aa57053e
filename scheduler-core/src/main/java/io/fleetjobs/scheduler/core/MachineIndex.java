package io.fleetjobs.scheduler.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The schedulable machines of one plan (those that pass the health filters), so that a job looks at a
 * few likely machines instead of all of them.
 *
 * <p>Machines are grouped in {@link Pool pools} by region and GPU type, and each pool keeps its machines
 * sorted by free capacity (free GPUs, then free CPU, then free memory, then id). A job visits only the
 * pools of its region and GPU types, and in each only the machines with at least its GPUs and CPU free.
 *
 * <p>Contract: for any job, the pools of {@link #tiers} together with {@link Pool#candidates} yield every
 * machine that could pass the filter chain (a superset: the caller still asks every filter). This holds
 * because a machine's free capacity only goes down within a plan, and {@link #take} re-sorts the
 * machine it changes.
 */
final class MachineIndex {
    private static final Comparator<PoolKey> POOL_ORDER = Comparator.comparing(PoolKey::region)
            .thenComparing(PoolKey::hasGpus)
            .thenComparing(PoolKey::gpuType, Comparator.nullsFirst(Comparator.naturalOrder()));

    private final Map<PoolKey, Pool> pools = new TreeMap<>(POOL_ORDER);
    private final Map<TierKey, List<List<Pool>>> tiersByKey = new HashMap<>();

    /** The machines that may take new work, each placed in its pool. */
    MachineIndex(Collection<MachineState> schedulable) {
        Map<PoolKey, List<MachineState>> grouped = new HashMap<>();
        for (MachineState machine : schedulable) {
            grouped.computeIfAbsent(PoolKey.of(machine.view), key -> new ArrayList<>()).add(machine);
        }
        grouped.forEach((key, machines) -> pools.put(key, new Pool(key, machines)));
    }

    /**
     * The pools where the job might fit, in tiers: the engine searches a tier only when the tiers
     * before it yielded no machine. Only a job that needs no GPU and names no GPU type has two tiers:
     * machines without GPUs first, then GPU machines, which is the order the scorers prefer anyway
     * ({@link WeightedScorer}). Within a tier pools are in a fixed order (region, then GPU type).
     */
    List<List<Pool>> tiers(PendingJob job) {
        return tiersByKey.computeIfAbsent(TierKey.of(job), this::tiersFor);
    }

    private List<List<Pool>> tiersFor(TierKey key) {
        List<Pool> first = new ArrayList<>();
        List<Pool> second = new ArrayList<>();
        for (Pool pool : pools.values()) {
            PoolKey poolKey = pool.key();
            if (key.region() != null && !key.region().equals(poolKey.region())) {
                continue;
            }
            if (!key.gpuTypes().isEmpty()) {
                if (poolKey.gpuType() != null && key.gpuTypes().contains(poolKey.gpuType())) {
                    first.add(pool);
                }
            } else if (key.needsGpus()) {
                if (poolKey.hasGpus()) {
                    first.add(pool);
                }
            } else {
                (poolKey.hasGpus() ? second : first).add(pool);
            }
        }
        return second.isEmpty() ? List.of(first) : List.of(first, second);
    }

    /** Records that the job goes on the machine: its free capacity goes down, and its place with it. */
    void take(MachineState machine, PendingJob job) {
        Pool pool = pools.get(PoolKey.of(machine.view));
        pool.remove(machine);
        machine.take(job);
        pool.add(machine);
    }

    /** Machines of one region and one GPU type (or none). */
    record PoolKey(String region, String gpuType, boolean hasGpus) {
        static PoolKey of(MachineView machine) {
            return new PoolKey(machine.region(), machine.gpuType(), machine.gpuCount() > 0);
        }
    }

    /** What decides a job's pools. */
    private record TierKey(String region, List<String> gpuTypes, boolean needsGpus) {
        static TierKey of(PendingJob job) {
            return new TierKey(job.region(), job.gpuTypes(), job.needsGpus());
        }
    }
}
