package io.fleetjobs.workloads.packing;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.scheduler.core.GpuDemand;
import io.fleetjobs.scheduler.core.MachineView;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.core.Plan;
import io.fleetjobs.scheduler.core.Snapshot;
import io.fleetjobs.workloads.packing.Cluster.Machine;
import io.fleetjobs.workloads.packing.Cluster.Task;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The platform's own engine as a policy: each arriving task is one job planned against a snapshot of the fleet as
 * it is (what earlier tasks took counted as allocated), as the scheduler's cycle would see it, with the demand for
 * GPU models of the tasks that arrived so far (the scheduler keeps it from the jobs it claims, the same way).
 */
final class PlatformPolicy implements Baselines.Policy {
    private static final UUID TENANT = new UUID(0, 1);
    private final PlacementEngine engine = new PlacementEngine();
    private final String name;
    private final GpuDemand.Tracker demand;
    private MachineView[] views;
    private Map<String, Integer> indexById;

    /** @param demandWindow about how many GPUs of recent demand the engine is told of; 0: none */
    PlatformPolicy(String name, long demandWindow) {
        this.name = name;
        this.demand = demandWindow > 0 ? new GpuDemand.Tracker(demandWindow) : null;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int choose(Task task, Fleet fleet) {
        if (views == null) {
            views = new MachineView[fleet.size()];
            indexById = new HashMap<>();
            for (int i = 0; i < fleet.size(); i++) {
                indexById.put(fleet.machines.get(i).id(), i);
            }
        }
        for (int i = 0; i < fleet.size(); i++) {
            views[i] = view(fleet, i);
        }
        PendingJob job = new PendingJob(new UUID(1, task.n()), TENANT, 500, task.cpuMillis(), task.memoryMb(), task.gpus(),
                task.models(), null, Map.of(), null, task.n());
        GpuDemand known = GpuDemand.NONE;
        if (demand != null) {
            demand.record(job);
            known = demand.current();
        }
        Plan plan = engine.plan(new Snapshot(Arrays.asList(views), Map.of(), Duration.ofSeconds(10), known), List.of(job));
        return plan.assignments().isEmpty() ? -1 : indexById.get(plan.assignments().getFirst().machineId());
    }

    private static MachineView view(Fleet fleet, int i) {
        Machine m = fleet.machines.get(i);
        Amounts capacity = new Amounts(m.cpuMillis(), m.memoryMb(), m.gpus());
        Amounts free = new Amounts(fleet.freeCpu[i], fleet.freeMemory[i], fleet.freeGpus[i]);
        return new MachineView(new FleetMachine(m.id(), "r", Map.of(), m.model(), capacity, capacity.minus(free),
                MachineStatus.READY), Duration.ZERO);
    }
}
