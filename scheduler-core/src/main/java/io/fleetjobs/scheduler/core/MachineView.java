package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.MachineStatus;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * One machine as the snapshot saw it: what it has, what is already allocated on it, where it is and
 * how healthy it looked. Immutable; the engine never changes it (placements within a plan are
 * counted on the engine's own copy of the free capacity).
 *
 * @param id           the machine's id; ties between equally good machines are broken by it
 * @param labels       the machine's labels; a job's required labels must all be among them
 * @param gpuType      the type of its GPUs (one type per machine), null when it has none or it is unknown
 * @param cpuMillis    total CPU, in millicores
 * @param memoryMb     total memory
 * @param gpuCount     total GPUs
 * @param heartbeatAge time since its last heartbeat, null if it never sent one
 */
public record MachineView(
        String id,
        String region,
        Map<String, String> labels,
        String gpuType,
        long cpuMillis,
        long memoryMb,
        int gpuCount,
        long allocCpuMillis,
        long allocMemoryMb,
        int allocGpuCount,
        MachineStatus status,
        Duration heartbeatAge,
        boolean sandboxed) {

    /** A machine whose agent does not sandbox its jobs (or did not say). */
    public MachineView(String id, String region, Map<String, String> labels, String gpuType, long cpuMillis, long memoryMb,
            int gpuCount, long allocCpuMillis, long allocMemoryMb, int allocGpuCount, MachineStatus status,
            Duration heartbeatAge) {
        this(id, region, labels, gpuType, cpuMillis, memoryMb, gpuCount, allocCpuMillis, allocMemoryMb, allocGpuCount, status,
                heartbeatAge, false);
    }

    public MachineView {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(status, "status");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        if (cpuMillis < 0 || memoryMb < 0 || gpuCount < 0
                || allocCpuMillis < 0 || allocMemoryMb < 0 || allocGpuCount < 0) {
            throw new IllegalArgumentException("machine " + id + ": capacity and allocation must not be negative");
        }
    }

    public long freeCpuMillis() {
        return cpuMillis - allocCpuMillis;
    }

    public long freeMemoryMb() {
        return memoryMb - allocMemoryMb;
    }

    public int freeGpuCount() {
        return gpuCount - allocGpuCount;
    }
}
