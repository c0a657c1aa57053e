package io.fleetjobs.scheduler.core;

import java.util.List;

/**
 * Keeps GPU machines whole enough for the jobs that are likely to come, after Weng et al.'s fragmentation gradient
 * (USENIX ATC 2023), written small: a machine's free GPUs count as fragmented for each likely job size (from
 * {@link GpuDemand#sizeShare}) that could not use them, because too few are free or too little CPU or memory is left
 * beside them. A job scores a machine by how much its placement changes that expected fragmentation: 100 when it
 * removes the most (it takes GPUs that no likely job could have used), 0 when it adds the most (it breaks a machine
 * that would have fitted the common jobs). Machines without GPUs, jobs without GPUs and a demand that says nothing of
 * sizes score 50: no opinion.
 */
final class GpuFragmentationScorer implements Scorer {
    private final GpuDemand demand;

    GpuFragmentationScorer(GpuDemand demand) {
        this.demand = demand;
    }

    @Override
    public double score(PendingJob job, MachineState machine) {
        int total = machine.view.machine().capacity().gpus();
        if (total == 0 || !job.needsGpus() || demand.sizeShare().isEmpty()) {
            return 50;
        }
        double before = fragmented(machine.freeGpus(), machine.freeCpuMillis(), machine.freeMemoryMb());
        double after = fragmented(machine.freeGpus() - job.gpuCount(), machine.freeCpuMillis() - job.cpuMillis(),
                machine.freeMemoryMb() - job.memoryMb());
        // the change lies within [-total, total]
        return 50 * (1 - (after - before) / total);
    }

    /** The expected number of free GPUs that a likely job could not use. */
    double fragmented(int gpus, long cpuMillis, long memoryMb) {
        if (gpus <= 0) {
            return 0;
        }
        List<Double> shares = demand.sizeShare();
        double unusable = 0;
        for (int size = 1; size <= shares.size(); size++) {
            boolean fits = size <= gpus && size * demand.cpuMillisPerGpu() <= cpuMillis
                    && size * demand.memoryMbPerGpu() <= memoryMb;
            if (!fits) {
                unusable += shares.get(size - 1) * gpus;
            }
        }
        return unusable;
    }
}
