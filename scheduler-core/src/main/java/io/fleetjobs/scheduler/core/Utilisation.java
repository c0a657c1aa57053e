package io.fleetjobs.scheduler.core;

/**
 * How full a machine would be with the job on it: the weighted mean, over the dimensions the machine
 * has, of (allocated + requested) / total, from 0 to 1. GPUs weigh twice as much as CPU or memory on
 * a machine that has them: they are the scarce, costly dimension, and leaving them fragmented costs
 * most.
 */
final class Utilisation {
    static final double GPU_WEIGHT = 2;

    private Utilisation() {
    }

    static double afterPlacing(PendingJob job, MachineState machine) {
        MachineView view = machine.view;
        double sum = 0;
        double weights = 0;
        if (view.cpuMillis() > 0) {
            sum += fraction(view.cpuMillis() - machine.freeCpuMillis() + job.cpuMillis(), view.cpuMillis());
            weights += 1;
        }
        if (view.memoryMb() > 0) {
            sum += fraction(view.memoryMb() - machine.freeMemoryMb() + job.memoryMb(), view.memoryMb());
            weights += 1;
        }
        if (view.gpuCount() > 0) {
            sum += GPU_WEIGHT * fraction(view.gpuCount() - machine.freeGpus() + job.gpuCount(), view.gpuCount());
            weights += GPU_WEIGHT;
        }
        return weights == 0 ? 1 : sum / weights;
    }

    private static double fraction(long used, long total) {
        return Math.min(1.0, Math.max(0.0, (double) used / total));
    }
}
