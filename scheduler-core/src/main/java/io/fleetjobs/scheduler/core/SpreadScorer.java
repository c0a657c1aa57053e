package io.fleetjobs.scheduler.core;

/**
 * Spreading ("least allocated"): the emptier the machine would stay with the job on it, the better,
 * so a job's attempts land on quiet machines. 100 would be a machine left empty (never reached,
 * since the job takes something); 0 a machine the job would fill.
 */
final class SpreadScorer implements Scorer {

    @Override
    public double score(PendingJob job, MachineState machine) {
        return 100 * (1 - Utilisation.afterPlacing(job, machine));
    }
}
