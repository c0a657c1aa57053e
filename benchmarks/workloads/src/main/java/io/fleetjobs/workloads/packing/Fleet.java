package io.fleetjobs.workloads.packing;

import io.fleetjobs.workloads.packing.Cluster.Machine;
import io.fleetjobs.workloads.packing.Cluster.Task;
import java.util.List;

/** What is free on each machine as tasks arrive and never leave. */
final class Fleet {
    final List<Machine> machines;
    final long[] freeCpu;
    final long[] freeMemory;
    final int[] freeGpus;
    final long totalGpus;

    Fleet(List<Machine> machines) {
        this.machines = List.copyOf(machines);
        int n = machines.size();
        freeCpu = new long[n];
        freeMemory = new long[n];
        freeGpus = new int[n];
        long gpus = 0;
        for (int i = 0; i < n; i++) {
            Machine m = machines.get(i);
            freeCpu[i] = m.cpuMillis();
            freeMemory[i] = m.memoryMb();
            freeGpus[i] = m.gpus();
            gpus += m.gpus();
        }
        totalGpus = gpus;
    }

    int size() {
        return machines.size();
    }

    /** Whether the task fits machine i now: its free capacity, and one of its models when it names some. */
    boolean fits(Task task, int i) {
        Machine m = machines.get(i);
        if (!task.models().isEmpty() && (m.model() == null || !task.models().contains(m.model()))) {
            return false;
        }
        return freeCpu[i] >= task.cpuMillis() && freeMemory[i] >= task.memoryMb() && freeGpus[i] >= task.gpus();
    }

    void place(Task task, int i) {
        if (!fits(task, i)) {
            throw new IllegalStateException("task " + task.n() + " does not fit " + machines.get(i).id());
        }
        freeCpu[i] -= task.cpuMillis();
        freeMemory[i] -= task.memoryMb();
        freeGpus[i] -= task.gpus();
    }

    long allocatedGpus() {
        long free = 0;
        for (int g : freeGpus) {
            free += g;
        }
        return totalGpus - free;
    }
}
