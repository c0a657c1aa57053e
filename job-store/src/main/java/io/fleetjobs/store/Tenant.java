package io.fleetjobs.store;

import java.util.UUID;

/** A tenant; quota fields are null where unlimited. */
public record Tenant(UUID id, String name, int weight, Long quotaCpuMillis, Long quotaMemoryMb, Integer quotaGpuCount) {
}
