package io.fleetjobs.scheduler.core;

/** The machine is in the job's region, when the job names one. */
final class RegionFilter implements MachineFilter {

    @Override
    public String name() {
        return "region";
    }

    @Override
    public Stage stage() {
        return Stage.ATTRIBUTE;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        return job.region() == null || job.region().equals(machine.view.machine().region());
    }

    @Override
    public boolean appliesTo(PendingJob job) {
        return job.region() != null;
    }

    @Override
    public String explain(PendingJob job, int machines) {
        return MachineFilter.counted(machines, "is", "are") + " outside region " + job.region();
    }
}
