package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;

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
        Amounts total = machine.view.machine().capacity();
        double sum = 0;
        double weights = 0;
        if (total.cpuMillis() > 0) {
            sum += fraction(total.cpuMillis() - machine.freeCpuMillis() + job.cpuMillis(), total.cpuMillis());
            weights += 1;
        }
        if (total.memoryMb() > 0) {
            sum += fraction(total.memoryMb() - machine.freeMemoryMb() + job.memoryMb(), total.memoryMb());
            weights += 1;
        }
        if (total.gpus() > 0) {
            sum += GPU_WEIGHT * fraction(total.gpus() - machine.freeGpus() + job.gpuCount(), total.gpus());
            weights += GPU_WEIGHT;
        }
        return weights == 0 ? 1 : sum / weights;
    }

    private static double fraction(long used, long total) {
        return Math.min(1.0, Math.max(0.0, (double) used / total));
    }
}
