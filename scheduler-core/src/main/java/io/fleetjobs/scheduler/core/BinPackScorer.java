package io.fleetjobs.scheduler.core;

/**
 * Bin-packing ("most allocated"): the fuller the machine would be with the job on it, the better.
 * Filling machines that are already busy keeps other machines whole for jobs that need a whole
 * machine, and on GPU machines it fills partly used ones before breaking into an idle one.
 * 100 means the job would fill the machine in every dimension.
 */
final class BinPackScorer implements Scorer {

    @Override
    public double score(PendingJob job, MachineState machine) {
        return 100 * Utilisation.afterPlacing(job, machine);
    }
}
