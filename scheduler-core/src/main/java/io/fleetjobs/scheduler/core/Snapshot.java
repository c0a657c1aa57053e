package io.fleetjobs.scheduler.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Everything the engine may know, read at one instant. The engine reads nothing else: no clock, no
 * database. Heartbeat ages are given relative to that instant, so the plan is a function of the
 * snapshot and the jobs alone.
 *
 * @param machines           every machine the scheduler knows, whatever its status (the explanation
 *                           of an unplaced job counts them all); ids must be unique
 * @param tenants            tenants by id; one missing from the map counts as {@link TenantView#unknown}
 * @param heartbeatFreshness a READY machine whose heartbeat is older than this takes nothing new
 */
public record Snapshot(List<MachineView> machines, Map<UUID, TenantView> tenants, Duration heartbeatFreshness) {

    public Snapshot {
        machines = List.copyOf(machines);
        tenants = Map.copyOf(tenants);
        Objects.requireNonNull(heartbeatFreshness, "heartbeatFreshness");
        if (heartbeatFreshness.isNegative()) {
            throw new IllegalArgumentException("heartbeatFreshness must not be negative");
        }
    }

    public TenantView tenant(UUID id) {
        TenantView tenant = tenants.get(id);
        return tenant != null ? tenant : TenantView.unknown(id);
    }
}
