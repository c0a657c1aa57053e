package io.fleetjobs.scheduler.core;

/**
 * Keeps scarce GPU models for the jobs that can run only there: a job that may use more than one model (any GPU,
 * or a few) scores a GPU machine by how little its model is pressed ({@link GpuPressure}): 100 where no job is
 * restricted to the model, 0 where the restricted demand alone would take all its free GPUs. A job restricted to
 * one model, and a machine without GPUs, score 100: there is nothing to keep.
 */
final class GpuScarcityScorer implements Scorer {
    private final GpuPressure pressure;

    GpuScarcityScorer(GpuPressure pressure) {
        this.pressure = pressure;
    }

    @Override
    public double score(PendingJob job, MachineState machine) {
        if (machine.view.machine().capacity().gpus() == 0 || job.gpuTypes().size() == 1) {
            return 100;
        }
        return 100 * (1 - Math.min(1, pressure.of(machine.view.machine().gpuType())));
    }
}
