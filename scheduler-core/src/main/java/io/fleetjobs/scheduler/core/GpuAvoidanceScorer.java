package io.fleetjobs.scheduler.core;

/**
 * Keeps GPU machines for GPU jobs: a job that needs no GPU scores 100 on a machine without GPUs and 0
 * on one with GPUs; a job that needs GPUs scores 100 everywhere (it only ever sees GPU machines).
 * A CPU job placed on a GPU machine takes CPU and memory that the machine's GPUs need to be usable.
 */
final class GpuAvoidanceScorer implements Scorer {

    @Override
    public double score(PendingJob job, MachineState machine) {
        if (job.needsGpus()) {
            return 100;
        }
        return machine.view.machine().capacity().gpus() > 0 ? 0 : 100;
    }
}
