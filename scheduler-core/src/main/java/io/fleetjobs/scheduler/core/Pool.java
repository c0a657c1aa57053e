package io.fleetjobs.scheduler.core;

import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The schedulable machines of one region and GPU type, sorted by free capacity: free GPUs, then free
 * CPU, then free memory, then id (so the order, and every plan, is independent of input order).
 * A machine's free capacity must not change while it is in the pool: remove it, change it, add it.
 */
final class Pool {
    static final Comparator<MachineState> BY_FREE_CAPACITY = (a, b) -> {
        int byGpus = Integer.compare(a.freeGpus(), b.freeGpus());
        if (byGpus != 0) {
            return byGpus;
        }
        int byCpu = Long.compare(a.freeCpuMillis(), b.freeCpuMillis());
        if (byCpu != 0) {
            return byCpu;
        }
        int byMemory = Long.compare(a.freeMemoryMb(), b.freeMemoryMb());
        return byMemory != 0 ? byMemory : a.id().compareTo(b.id());
    };

    private final MachineIndex.PoolKey key;
    private final TreeSet<MachineState> machines = new TreeSet<>(BY_FREE_CAPACITY);

    Pool(MachineIndex.PoolKey key, List<MachineState> machines) {
        this.key = key;
        this.machines.addAll(machines);
    }

    MachineIndex.PoolKey key() {
        return key;
    }

    /**
     * Every machine of the pool with at least the job's GPUs and CPU free (the others cannot fit it),
     * from the least free to the most free ({@code tightestFirst}) or the other way round.
     */
    Iterator<MachineState> candidates(PendingJob job, boolean tightestFirst) {
        NavigableSet<MachineState> enough = machines.tailSet(MachineState.probe(job.gpuCount(), job.cpuMillis()), true);
        return tightestFirst ? enough.iterator() : enough.descendingIterator();
    }

    void remove(MachineState machine) {
        machines.remove(machine);
    }

    void add(MachineState machine) {
        machines.add(machine);
    }

    int size() {
        return machines.size();
    }
}
