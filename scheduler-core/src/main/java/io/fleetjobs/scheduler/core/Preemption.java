package io.fleetjobs.scheduler.core;

import java.util.List;
import java.util.UUID;

/**
 * Where a job that fits nowhere runs once lower-priority attempts end, and which: the answer of
 * {@link Preemptions#plan}. The caller ends the victims (SIGTERM, their kill grace, failure reason PREEMPTED)
 * and holds the room they free for the preemptor.
 *
 * @param reason what a person reads in the job's and the victims' state reason
 */
public record Preemption(UUID jobId, String machineId, List<RunningAttempt> victims, String reason) {
    public Preemption {
        victims = List.copyOf(victims);
    }
}
