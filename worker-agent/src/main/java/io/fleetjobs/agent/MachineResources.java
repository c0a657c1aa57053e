package io.fleetjobs.agent;

import io.fleetjobs.agent.resources.GpuInventory;
import io.fleetjobs.agent.resources.HostResources;
import io.fleetjobs.agent.resources.NvidiaSmi;
import io.fleetjobs.model.GpuDevice;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What this machine offers: configured where set, detected otherwise.
 *
 * @param gpus the {@code gpuCount} devices offered: as nvidia-smi lists them, or numbered 0…n-1 where the count was
 *             set by hand and nvidia-smi does not list as many of the type
 * @param gpuMinors each GPU's device node, {@code /dev/nvidia<minor>}, by its nvidia-smi index (PCI bus order, which
 *                  the driver's minor numbers need not follow); an index not in it is taken as its own minor
 */
record MachineResources(String machineId, long cpuMillis, long memoryMb, int gpuCount, String gpuType, List<GpuDevice> gpus,
        Map<Integer, Integer> gpuMinors) {

    MachineResources(String machineId, long cpuMillis, long memoryMb, int gpuCount, String gpuType) {
        this(machineId, cpuMillis, memoryMb, gpuCount, gpuType, GpuDevice.numbered(gpuCount));
    }

    MachineResources(String machineId, long cpuMillis, long memoryMb, int gpuCount, String gpuType, List<GpuDevice> gpus) {
        this(machineId, cpuMillis, memoryMb, gpuCount, gpuType, gpus, Map.of());
    }

    MachineResources {
        gpuMinors = gpuMinors == null ? Map.of() : Map.copyOf(gpuMinors);
    }

    /** The device nodes' minor numbers of these GPUs (nvidia-smi indices, as a lease names them). */
    List<Integer> deviceMinors(List<Integer> indices) {
        return indices == null ? List.of() : indices.stream().map(i -> gpuMinors.getOrDefault(i, i)).toList();
    }

    static MachineResources resolve(WorkerProperties p) {
        if (p.joinToken() == null || p.joinToken().isBlank()) {
            throw new IllegalStateException("no join token: set jobs.worker.join-token (JOBS_WORKER_JOIN_TOKEN) to the "
                    + "control plane's JOBS_AGENT_JOIN_TOKEN");
        }
        String machineId = p.machineId() == null || p.machineId().isBlank() ? hostname() : p.machineId();
        long cpuMillis;
        if (p.cpu() == null) {
            cpuMillis = HostResources.cpuMillis();
        } else if (p.cpu().signum() <= 0 || p.cpu().scale() > 3) {
            throw new IllegalStateException("jobs.worker.cpu must be a positive number of cores with at most 3 decimals, not "
                    + p.cpu().toPlainString());
        } else {
            cpuMillis = p.cpu().multiply(BigDecimal.valueOf(1000)).longValueExact();
        }
        long memoryMb = p.memoryMb() == null ? HostResources.memoryMb() : p.memoryMb();
        if (memoryMb <= 0) {
            throw new IllegalStateException("jobs.worker.memory-mb must be positive, not " + memoryMb);
        }
        int gpuCount;
        String gpuType;
        List<GpuDevice> devices;
        Map<Integer, Integer> minors = Map.of();
        if (p.gpuCount() != null) {
            if (p.gpuCount() < 0) {
                throw new IllegalStateException("jobs.worker.gpu-count must be 0 or more, not " + p.gpuCount());
            }
            gpuCount = p.gpuCount();
            gpuType = p.gpuType();
            GpuInventory detected = gpuCount > 0 ? NvidiaSmi.detect(Duration.ofSeconds(10)).orElse(GpuInventory.NONE)
                    : GpuInventory.NONE;
            if (gpuCount > 0 && gpuType == null) {
                gpuType = detected.type();
            }
            devices = detected.offered().size() >= gpuCount ? detected.offered().subList(0, gpuCount)
                    : GpuDevice.numbered(gpuCount);
            minors = detected.minors();
        } else {
            GpuInventory gpus = NvidiaSmi.detect(Duration.ofSeconds(10)).orElse(GpuInventory.NONE);
            gpuCount = gpus.count();
            gpuType = p.gpuType() != null ? p.gpuType() : gpus.type();
            devices = gpus.offered();
            minors = gpus.minors();
        }
        return new MachineResources(machineId, cpuMillis, memoryMb, gpuCount, gpuCount == 0 ? null : gpuType, devices,
                minors);
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("cannot tell this machine's name: set jobs.worker.machine-id", e);
        }
    }
}
