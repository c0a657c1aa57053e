package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.FleetMachine;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The schedulable machines of one plan (those that pass the health filters), so that a job looks at a
 * few likely machines instead of all of them.
 *
 * <p>Machines are grouped in {@link Pool pools} by region and GPU type, and each pool keeps its machines
 * in buckets by free capacity (free GPUs, then free CPU). A job visits only the pools of its region and
 * GPU types, and in each only the buckets with at least its GPUs and CPU free.
 *
 * <p>Contract: for any job, the pools of {@link #tiers} together with {@link Pool#visit} yield every
 * machine that passes the filter chain (a superset: the caller still asks the filters of
 * {@link FilterChain#afterIndex}). Every machine they yield passes the other filters: it is healthy
 * (only healthy machines are indexed), in the job's region and of an accepted GPU type (its pool is),
 * and its free capacity, when enough, implies its total is. {@link #take} keeps each machine in the
 * bucket its free capacity calls for.
 */
final class MachineIndex {
    private static final Comparator<Pool> POOL_ORDER = Comparator.comparing((Pool pool) -> pool.key().region())
            .thenComparing(pool -> pool.key().hasGpus())
            .thenComparing(pool -> pool.key().gpuType(), Comparator.nullsFirst(Comparator.naturalOrder()));

    private final Map<PoolKey, Pool> pools = new HashMap<>();
    /** A shortcut to the most common pool, machines without GPUs, by region. */
    private final Map<String, Pool> cpuPools = new HashMap<>();
    private final Map<TierKey, List<List<Pool>>> tiersByKey = new HashMap<>();
    private List<Pool> sortedPools;

    /** Indexes a machine that may take new work. */
    void add(MachineState machine) {
        FleetMachine view = machine.view.machine();
        boolean plainCpu = view.capacity().gpus() == 0 && view.gpuType() == null;
        Pool pool = plainCpu ? cpuPools.get(view.region()) : pools.get(PoolKey.of(view));
        if (pool == null) {
            PoolKey key = PoolKey.of(view);
            pool = new Pool(key);
            pools.put(key, pool);
            if (plainCpu) {
                cpuPools.put(view.region(), pool);
            }
            sortedPools = null;
            tiersByKey.clear();
        }
        pool.add(machine);
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
        if (sortedPools == null) {
            sortedPools = new ArrayList<>(pools.values());
            sortedPools.sort(POOL_ORDER);
        }
        List<Pool> first = new ArrayList<>();
        List<Pool> second = new ArrayList<>();
        for (Pool pool : sortedPools) {
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

    /** Records that the job goes on the machine: its free capacity goes down, and its bucket with it. */
    void take(MachineState machine, PendingJob job) {
        machine.take(job);
        machine.pool.update(machine);
    }

    /** Gives back what the job took on the machine (a gang undone), and re-buckets it. */
    void give(MachineState machine, PendingJob job) {
        machine.give(job);
        machine.pool.update(machine);
    }

    /** The regions of the indexed machines, in order. */
    List<String> regions() {
        return pools.keySet().stream().map(PoolKey::region).distinct().sorted().toList();
    }

    /** Machines of one region and one GPU type (or none). */
    record PoolKey(String region, String gpuType, boolean hasGpus) {
        static PoolKey of(FleetMachine machine) {
            return new PoolKey(machine.region(), machine.gpuType(), machine.capacity().gpus() > 0);
        }
    }

    /** What decides a job's pools. */
    private record TierKey(String region, List<String> gpuTypes, boolean needsGpus) {
        static TierKey of(PendingJob job) {
            return new TierKey(job.region(), job.gpuTypes(), job.needsGpus());
        }
    }
}
