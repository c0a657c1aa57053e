package io.fleetjobs.scheduler.core;

/**
 * Keeps each GPU model's free GPUs for the jobs that can run only there, weighing the chance that they will run out
 * ({@link GpuPressure#shortfall}): a job that may use more than one model scores a GPU machine 100 × (1 − the chance
 * that, with this job's GPUs taken there, the jobs restricted to the machine's model find it full before the fleet
 * fills). Beside {@link GpuScarcityScorer}, which compares the expected demand with what is free, this one also counts
 * how unevenly that demand comes (a few jobs of 8 GPUs more than many of 1) and what this job would take, so it
 * steers hardest at the end, when a model's last free GPUs are few. A job restricted to one model, a job without GPUs
 * and a machine without GPUs score 100: there is nothing to keep.
 */
final class GpuShortfallScorer implements Scorer {
    private final GpuPressure pressure;

    GpuShortfallScorer(GpuPressure pressure) {
        this.pressure = pressure;
    }

    @Override
    public double score(PendingJob job, MachineState machine) {
        if (machine.view.machine().capacity().gpus() == 0 || !job.needsGpus() || job.gpuTypes().size() == 1) {
            return 100;
        }
        return 100 * (1 - pressure.shortfall(machine.view.machine().gpuType(), job.gpuCount()));
    }
}
