package io.fleetjobs.scheduler.core;

/**
 * The machine sandboxes its jobs, when the job requires it ({@code placement.requireIsolation}, or a network of its own,
 * {@code execution.network} none, which only the sandbox makes: {@code JobSpec.requiresSandbox}).
 */
final class IsolationFilter implements MachineFilter {

    @Override
    public String name() {
        return "isolation";
    }

    @Override
    public Stage stage() {
        return Stage.ATTRIBUTE;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        return !job.requireIsolation() || machine.view.sandboxed();
    }

    @Override
    public boolean appliesTo(PendingJob job) {
        return job.requireIsolation();
    }

    @Override
    public String explain(PendingJob job, int machines) {
        return MachineFilter.counted(machines, "does", "do") + " not sandbox their jobs (isolation none), and this job"
                + " requires it (placement.requireIsolation, or execution.network none)";
    }
}
