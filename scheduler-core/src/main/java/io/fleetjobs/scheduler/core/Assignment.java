package io.fleetjobs.scheduler.core;

import java.util.UUID;

/** One placement of the plan: the job goes on the machine and holds these amounts there. */
public record Assignment(UUID jobId, String machineId, long cpuMillis, long memoryMb, int gpuCount) {
}
