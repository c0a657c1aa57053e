package io.fleetjobs.scheduler.core;

/**
 * The machine may take one more attempt: it runs fewer than the most it runs at once, counting what earlier placements
 * of the same plan took. However little each job asks for, every attempt costs its agent memory and the machine
 * processes; without this a tenant's flood of jobs of 0.001 CPU and 1 MiB landed on one machine by the hundred and its
 * agent ran out of heap. A rejection here lasts only until attempts on the machine end.
 */
final class AttemptsFilter implements MachineFilter {

    @Override
    public String name() {
        return "free-attempts";
    }

    @Override
    public Stage stage() {
        return Stage.CAPACITY;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        return machine.freeAttempts() >= 1;
    }

    @Override
    public String explain(PendingJob job, int machines) {
        return MachineFilter.counted(machines, "runs", "run") + " as many attempts at once as "
                + (machines == 1 ? "it takes" : "they take");
    }
}
