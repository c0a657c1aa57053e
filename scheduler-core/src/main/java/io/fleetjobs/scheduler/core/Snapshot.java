package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
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
 *                           of an unplaced job counts them all); ids must be unique. Kept sorted by id,
 *                           whatever order they come in, so that a plan never depends on that order
 *                           (sorting is skipped when they already are, as from {@code ORDER BY id})
 * @param tenants            tenants by id; one missing from the map counts as {@link TenantView#unknown}
 * @param heartbeatFreshness a READY machine whose heartbeat is older than this takes nothing new
 * @param gpuDemand          what recent demand asks of each GPU model ({@link GpuDemand#NONE}: nothing known)
 */
public record Snapshot(List<MachineView> machines, Map<UUID, TenantView> tenants, Duration heartbeatFreshness,
                       GpuDemand gpuDemand) {

    /** A snapshot that knows nothing of the demand for GPU models. */
    public Snapshot(List<MachineView> machines, Map<UUID, TenantView> tenants, Duration heartbeatFreshness) {
        this(machines, tenants, heartbeatFreshness, GpuDemand.NONE);
    }

    public Snapshot {
        gpuDemand = gpuDemand == null ? GpuDemand.NONE : gpuDemand;
        machines = sortedById(machines);
        tenants = Map.copyOf(tenants);
        Objects.requireNonNull(heartbeatFreshness, "heartbeatFreshness");
        if (heartbeatFreshness.isNegative()) {
            throw new IllegalArgumentException("heartbeatFreshness must not be negative");
        }
    }

    private static List<MachineView> sortedById(List<MachineView> machines) {
        List<MachineView> sorted = List.copyOf(machines);
        if (!isStrictlyInIdOrder(sorted)) {
            MachineView[] array = sorted.toArray(MachineView[]::new);
            Arrays.sort(array, Comparator.comparing(MachineView::id));
            sorted = List.of(array);
            isStrictlyInIdOrder(sorted);
        }
        return sorted;
    }

    /** Whether ids strictly increase; throws on a duplicate met on the way (all are, once sorted). */
    private static boolean isStrictlyInIdOrder(List<MachineView> machines) {
        for (int i = 1; i < machines.size(); i++) {
            int order = machines.get(i - 1).id().compareTo(machines.get(i).id());
            if (order == 0) {
                throw new IllegalArgumentException("machine " + machines.get(i).id() + " is twice in the snapshot");
            }
            if (order > 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The same snapshot with {@code placed} counted: on their machines as allocated (and as attempts), on their tenants
     * as used. How a pass after a plan sees the fleet the plan leaves.
     */
    public Snapshot withPlaced(List<Assignment> placed) {
        if (placed.isEmpty()) {
            return this;
        }
        Map<String, Amounts> added = Reservations.byMachine(placed);
        Map<String, Integer> attempts = Reservations.attemptsByMachine(placed);
        List<MachineView> after = new ArrayList<>(machines.size());
        for (MachineView m : machines) {
            Amounts more = added.get(m.id());
            after.add(more == null ? m : m.allocating(more, attempts.getOrDefault(m.id(), 0)));
        }
        Map<UUID, TenantView> used = new HashMap<>(tenants);
        Reservations.byTenant(placed).forEach((id, more) -> {
            TenantView t = tenant(id);
            used.put(id, new TenantView(id, t.weight(), t.usedCpuMillis() + more.cpuMillis(),
                    t.usedMemoryMb() + more.memoryMb(), t.usedGpus() + more.gpus(), t.quota()));
        });
        return new Snapshot(after, used, heartbeatFreshness, gpuDemand);
    }

    public TenantView tenant(UUID id) {
        TenantView tenant = tenants.get(id);
        return tenant != null ? tenant : TenantView.unknown(id);
    }
}
