package io.fleetjobs.scheduler.core;

/**
 * The machine has GPUs of a type the job accepts, when the job names types ("A100|H100": either);
 * a job that wants GPUs but names no type takes any machine that has GPUs.
 */
final class GpuTypeFilter implements MachineFilter {

    @Override
    public String name() {
        return "gpu-type";
    }

    @Override
    public Stage stage() {
        return Stage.ATTRIBUTE;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        if (!job.gpuTypes().isEmpty()) {
            String type = machine.view.machine().gpuType();
            return type != null && job.gpuTypes().contains(type);
        }
        return !job.needsGpus() || machine.view.machine().capacity().gpus() > 0;
    }

    @Override
    public boolean appliesTo(PendingJob job) {
        return !job.gpuTypes().isEmpty() || job.needsGpus();
    }

    @Override
    public String explain(PendingJob job, int machines) {
        if (job.gpuTypes().isEmpty()) {
            return MachineFilter.counted(machines, "has", "have") + " no GPUs";
        }
        return MachineFilter.counted(machines, "lacks", "lack") + " GPU type " + String.join(" or ", job.gpuTypes());
    }
}
