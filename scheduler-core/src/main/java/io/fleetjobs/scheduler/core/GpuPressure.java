package io.fleetjobs.scheduler.core;

import java.util.HashMap;
import java.util.Map;

/**
 * How much of a GPU model's free GPUs the jobs that can use only that model are expected to ask for, during one
 * plan: {@code pressure(model) = restrictedShare(model) × free GPUs of the fleet / free GPUs of the model}. At 1
 * the restricted demand alone would take every free GPU of the model before the fleet fills; below, the model has
 * room to spare for jobs that could run anywhere. Follows the plan's placements ({@link #took}).
 */
final class GpuPressure {
    private final GpuDemand demand;
    private final Map<String, Long> freeByModel = new HashMap<>();
    private long free;

    GpuPressure(GpuDemand demand) {
        this.demand = demand;
    }

    GpuDemand demand() {
        return demand;
    }

    /** Counts an indexed machine's free GPUs. */
    void add(MachineState machine) {
        if (machine.freeGpus() > 0 && machine.view.machine().gpuType() != null) {
            freeByModel.merge(machine.view.machine().gpuType(), (long) machine.freeGpus(), Long::sum);
            free += machine.freeGpus();
        }
    }

    /** The job took its GPUs on the machine. */
    void took(MachineState machine, PendingJob job) {
        if (job.gpuCount() > 0 && machine.view.machine().gpuType() != null) {
            freeByModel.merge(machine.view.machine().gpuType(), (long) -job.gpuCount(), Long::sum);
            free -= job.gpuCount();
        }
    }

    /** The job gave its GPUs back (a gang undone). */
    void gave(MachineState machine, PendingJob job) {
        if (job.gpuCount() > 0 && machine.view.machine().gpuType() != null) {
            freeByModel.merge(machine.view.machine().gpuType(), (long) job.gpuCount(), Long::sum);
            free += job.gpuCount();
        }
    }

    double of(String model) {
        double share = demand.restrictedShare(model);
        if (share == 0) {
            return 0;
        }
        long modelFree = freeByModel.getOrDefault(model, 0L);
        return share * free / Math.max(1, modelFree);
    }
}
