package io.fleetjobs.scheduler.core;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Test helpers around snapshots and plans. */
final class Snapshots {

    private Snapshots() {
    }

    static Snapshot of(MachineView... machines) {
        return new Snapshot(Arrays.asList(machines), Map.of(), Machines.FRESH);
    }

    static Snapshot of(List<MachineView> machines, TenantView... tenants) {
        Map<UUID, TenantView> byId = new HashMap<>();
        for (TenantView tenant : tenants) {
            byId.put(tenant.id(), tenant);
        }
        return new Snapshot(machines, byId, Machines.FRESH);
    }

    static Plan plan(Snapshot snapshot, PendingJob... jobs) {
        return new PlacementEngine().plan(snapshot, Arrays.asList(jobs));
    }

    /** Where each placed job went, by job id. */
    static Map<UUID, String> machinesOf(Plan plan) {
        Map<UUID, String> placed = new HashMap<>();
        plan.assignments().forEach(assignment -> placed.put(assignment.jobId(), assignment.machineId()));
        return placed;
    }
}
