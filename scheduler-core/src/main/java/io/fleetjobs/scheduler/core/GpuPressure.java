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

    /**
     * The chance that the jobs restricted to the model will ask for more GPUs than it has free, once {@code taking}
     * more are taken, before the fleet's free GPUs are all taken. Their demand until then is counted as jobs that
     * come at random: its mean is {@code restrictedShare × free GPUs of the fleet}, its variance the mean times the
     * mean size of the job a GPU belongs to ({@link GpuDemand#gpuWeightedJobSize}), so that a model asked for in
     * lumps of 8 needs a wider margin than one asked for one GPU at a time. The normal approximation of that demand
     * is read through the logistic curve {@code 1 / (1 + e^(-1.702 z))}, within 0.01 of it.
     */
    double shortfall(String model, int taking) {
        double share = demand.restrictedShare(model);
        if (share == 0) {
            return 0;
        }
        double mean = share * free;
        double spread = Math.sqrt(mean * demand.gpuWeightedJobSize());
        long left = freeByModel.getOrDefault(model, 0L) - taking;
        if (spread == 0) {
            return left < mean ? 1 : 0;
        }
        double z = (left - mean) / spread;
        return 1 / (1 + Math.exp(1.702 * z));
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
