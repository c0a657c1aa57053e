package io.fleetjobs.agent.process;

import java.util.List;

/**
 * What a job asked for, which its attempt's cgroup enforces; a null part is not limited.
 *
 * @param cpuMillis CPUs in millicores: a CFS quota of {@code cpuMillis / 1000} CPUs
 * @param memoryMb  memory in MiB: the cgroup's limit is this plus the agent's headroom
 * @param gpuDevices the GPUs the attempt holds, by their device nodes' minor numbers ({@code /dev/nvidia<N>}, which
 *                   is not always nvidia-smi's index): in a sandbox every other {@code nvidia<N>} is hidden
 * @param ownNetwork a network of its own, with only its loopback ({@code execution.network} none): in a sandbox only
 */
public record Requested(Long cpuMillis, Long memoryMb, List<Integer> gpuDevices, boolean ownNetwork) {
    public static final Requested NOTHING = new Requested(null, null);

    public Requested(Long cpuMillis, Long memoryMb) {
        this(cpuMillis, memoryMb, List.of());
    }

    public Requested(Long cpuMillis, Long memoryMb, List<Integer> gpuDevices) {
        this(cpuMillis, memoryMb, gpuDevices, false);
    }

    public Requested {
        gpuDevices = gpuDevices == null ? List.of() : List.copyOf(gpuDevices);
    }
}
