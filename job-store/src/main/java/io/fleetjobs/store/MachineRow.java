package io.fleetjobs.store;

import io.fleetjobs.model.MachineStatus;
import java.time.Instant;
import java.util.Map;

/**
 * A machine as the database has it: capacity and what is allocated, per dimension; {@code isolation} as its agent
 * said at join ({@code sandbox}, {@code none}; null when it did not say).
 */
public record MachineRow(
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
        String statusReason,
        Instant lastHeartbeatAt,
        String isolation) {
}
