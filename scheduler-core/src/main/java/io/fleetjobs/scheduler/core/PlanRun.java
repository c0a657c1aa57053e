package io.fleetjobs.scheduler.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One call of {@link PlacementEngine#plan}: the mutable working state (free capacity, tenant usage,
 * index) of deciding one batch. Used once, by one thread, then dropped.
 */
final class PlanRun {
    private final MachineIndex index;
    private final CandidateSearch search;
    private final Explainer explainer;
    private final TenantLedger ledger;

    /** Shapes that found no machine: capacity only goes down within a plan, so they never will. */
    private final Set<Shape> unplaceable = new HashSet<>();
    /** Explanations by shape, valid while no placement has changed any machine since. */
    private final Map<Shape, Unplaced> explained = new HashMap<>();

    PlanRun(Snapshot snapshot, int candidatesPerPool) {
        HeartbeatFilter heartbeat = new HeartbeatFilter(snapshot.heartbeatFreshness());
        List<MachineState> all = new ArrayList<>(snapshot.machines().size());
        this.index = new MachineIndex();
        for (MachineView view : snapshot.machines()) {
            MachineState machine = new MachineState(view);
            all.add(machine);
            if (ReadyFilter.isReady(view) && heartbeat.isFresh(view)) {
                index.add(machine);
            }
        }
        this.search = new CandidateSearch(index, candidatesPerPool);
        this.explainer = new Explainer(all, FilterChain.standard(snapshot.heartbeatFreshness()));
        this.ledger = new TenantLedger(snapshot);
    }

    Plan decide(List<PendingJob> jobs) {
        Set<UUID> ids = new HashSet<>();
        for (PendingJob job : jobs) {
            if (!ids.add(job.jobId())) {
                throw new IllegalArgumentException("job " + job.jobId() + " is twice in the batch");
            }
        }
        List<Assignment> assignments = new ArrayList<>();
        Map<UUID, Unplaced> unplaced = new LinkedHashMap<>();
        FairShareQueue queue = new FairShareQueue(jobs, ledger);
        for (PendingJob job = queue.next(); job != null; job = queue.next()) {
            Unplaced heldBack = QuotaCheck.check(job, ledger.account(job.tenantId()));
            if (heldBack != null) {
                unplaced.put(job.jobId(), heldBack);
                continue;
            }
            MachineState machine = findMachine(job);
            if (machine == null) {
                unplaced.put(job.jobId(), explain(job));
                continue;
            }
            index.take(machine, job);
            ledger.charge(job);
            explained.clear();
            assignments.add(new Assignment(job.jobId(), machine.id(), job.cpuMillis(), job.memoryMb(), job.gpuCount()));
        }
        return new Plan(assignments, unplaced);
    }

    private MachineState findMachine(PendingJob job) {
        if (!unplaceable.isEmpty() && unplaceable.contains(Shape.of(job))) {
            return null;
        }
        MachineState machine = search.best(job);
        if (machine == null) {
            unplaceable.add(Shape.of(job));
        }
        return machine;
    }

    private Unplaced explain(PendingJob job) {
        return explained.computeIfAbsent(Shape.of(job), shape -> explainer.explain(job));
    }

    /** What decides whether, and where, a job can fit: all of it but the job's identity, order and strategy. */
    private record Shape(long cpuMillis, long memoryMb, int gpuCount, List<String> gpuTypes, String region,
                         Map<String, String> labels) {
        static Shape of(PendingJob job) {
            return new Shape(job.cpuMillis(), job.memoryMb(), job.gpuCount(), job.gpuTypes(), job.region(), job.labels());
        }
    }
}
