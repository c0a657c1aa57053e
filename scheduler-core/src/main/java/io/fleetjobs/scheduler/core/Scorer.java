package io.fleetjobs.scheduler.core;

/**
 * How good a machine is for a job, among machines that fit it.
 *
 * <p>Contract: pure (changes neither the job nor the machine); asked only for machines that every
 * filter accepts, so it may assume the job fits; returns a score from 0 to 100 inclusive, higher
 * is better. Scores of different scorers are comparable because they share that range, which is
 * what lets {@link WeightedScorer} mix them by weight.
 */
interface Scorer {

    double score(PendingJob job, MachineState machine);
}
