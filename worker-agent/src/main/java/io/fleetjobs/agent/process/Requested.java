package io.fleetjobs.agent.process;

/**
 * What a job asked for, which its attempt's cgroup enforces; a null part is not limited.
 *
 * @param cpuMillis CPUs in millicores: a CFS quota of {@code cpuMillis / 1000} CPUs
 * @param memoryMb  memory in MiB: the cgroup's limit is this plus the agent's headroom
 */
public record Requested(Long cpuMillis, Long memoryMb) {
    public static final Requested NOTHING = new Requested(null, null);
}
