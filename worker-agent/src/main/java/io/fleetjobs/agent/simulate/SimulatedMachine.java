package io.fleetjobs.agent.simulate;

import java.util.Map;
import java.util.Objects;

/**
 * One machine the fleet simulator plays, as a line of the machines file gives it.
 *
 * @param gpuType null when the machine has no GPU or does not name their type
 */
public record SimulatedMachine(String id, String region, long cpuMillis, long memoryMb, int gpuCount, String gpuType,
        Map<String, String> labels) {
    public SimulatedMachine {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(region, "region");
        labels = Map.copyOf(labels);
    }
}
