package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.UnplacedKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
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
    private final GpuPressure pressure;
    private final List<MachineState> all;

    // What the plan learnt about jobs that fit nowhere, so that a flood of identical jobs costs one search
    // and one explanation rather than one each (Nomad likewise caches feasibility per class of node).

    /** Shapes that found no machine: capacity only goes down within a plan, so they never will. */
    private final Set<Shape> unplaceable = new HashSet<>();
    /** Explanations by shape, valid while no placement has changed any machine since. */
    private final Map<Shape, Unplaced> explained = new HashMap<>();
    /** Due gangs that keep, for the rest of the plan, the room they found without fitting whole. */
    private final Set<UUID> heldFor = new HashSet<>();
    /** That room, a replica's amounts on each machine. */
    private final List<Assignment> held = new ArrayList<>();
    /** Explanations of attributes no machine has at all: valid for the whole plan, whatever the amounts. */
    private final Map<Attributes, Unplaced> attributesNowhere = new HashMap<>();

    PlanRun(Snapshot snapshot, int candidatesPerPool) {
        HeartbeatFilter heartbeat = new HeartbeatFilter(snapshot.heartbeatFreshness());
        this.all = new ArrayList<>(snapshot.machines().size());
        this.index = new MachineIndex();
        this.pressure = new GpuPressure(snapshot.gpuDemand());
        for (MachineView view : snapshot.machines()) {
            MachineState machine = new MachineState(view);
            all.add(machine);
            if (ReadyFilter.isReady(view) && heartbeat.isFresh(view)) {
                index.add(machine);
                pressure.add(machine);
            }
        }
        this.search = new CandidateSearch(index, candidatesPerPool, pressure);
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
            Unplaced heldBack = QuotaCheck.check(job.wholeGang(), ledger.account(job.tenantId()));
            if (heldBack != null && job.isGang()) {
                heldBack = new Unplaced(heldBack.kind(), "a gang of " + job.replicas() + " replicas, counted together: "
                        + heldBack.reason(), heldBack.rejectedBy());
            }
            if (heldBack == null && job.isGang()) {
                Unplaced notWhole = placeGang(job, assignments);
                if (notWhole != null) {
                    unplaced.put(job.jobId(), notWhole);
                }
                continue;
            }
            if (heldBack != null) {
                unplaced.put(job.jobId(), heldBack);
                continue;
            }
            Unplaced known = knownNotToFit(job);
            if (known != null) {
                unplaced.put(job.jobId(), known);
                continue;
            }
            MachineState machine = search.best(job);
            if (machine == null) {
                unplaced.put(job.jobId(), explainAndRemember(job));
                continue;
            }
            index.take(machine, job);
            pressure.took(machine, job);
            ledger.charge(job);
            explained.clear();
            assignments.add(new Assignment(job.jobId(), job.tenantId(), machine.id(),
                    new Amounts(job.cpuMillis(), job.memoryMb(), job.gpuCount())));
        }
        return new Plan(assignments, unplaced, held);
    }

    /**
     * Places a gang's replicas all at once, in one scope after another (each region, or each value of the label,
     * in order), or none: replicas placed in a scope where the gang does not fit whole are given back before
     * anything else is decided. @return why it is not placed, or null when it is (its assignments added)
     */
    private Unplaced placeGang(PendingJob gang, List<Assignment> assignments) {
        int most = 0;
        int mostEver = 0;
        boolean everFits = false;
        Unplaced lastReplica = null;
        for (PendingJob replica : GangScopes.of(gang, index.regions(), all)) {
            // one replica per machine: replicas rendezvous on one port, and the agent knows an attempt by (job, attempt)
            Set<MachineState> taken = new LinkedHashSet<>();
            MachineState machine;
            while (taken.size() < gang.replicas() && (machine = search.best(replica, taken)) != null) {
                index.take(machine, replica);
                pressure.took(machine, replica);
                taken.add(machine);
            }
            if (taken.size() == gang.replicas()) {
                int rank = 0;
                for (MachineState m : taken) {
                    assignments.add(new Assignment(gang.jobId(), gang.tenantId(), m.id(),
                            new Amounts(gang.cpuMillis(), gang.memoryMb(), gang.gpuCount()), rank++));
                }
                ledger.charge(gang.wholeGang());
                explained.clear();
                return null;
            }
            most = Math.max(most, taken.size());
            int couldEver = explainer.couldEverTake(replica);
            mostEver = Math.max(mostEver, couldEver);
            lastReplica = search.best(replica) == null ? explainer.explain(replica).unplaced()
                    : new Unplaced(UnplacedKind.DOES_NOT_FIT_NOW, "every other machine it fits holds a replica already",
                            null);
            everFits |= !taken.isEmpty() || lastReplica.kind() != UnplacedKind.CAN_NEVER_FIT;
            if (gang.gangDue() && !taken.isEmpty() && couldEver >= gang.replicas() && !heldFor.contains(gang.jobId())) {
                // due: the room found stays taken for the rest of this plan (in the first scope that found any, and
                // only where the gang could ever fit whole: one that never can would hold machines for nothing)
                heldFor.add(gang.jobId());
                int rank = 0;
                for (MachineState m : taken) {
                    held.add(new Assignment(gang.jobId(), gang.tenantId(), m.id(),
                            new Amounts(gang.cpuMillis(), gang.memoryMb(), gang.gpuCount()), rank++));
                }
                explained.clear();
                continue;
            }
            for (MachineState m : taken) {
                index.give(m, replica);
                pressure.gave(m, replica);
            }
        }
        String scope = gang.gangScope() == null ? "" : " in one " + GangScopes.describe(gang.gangScope());
        if (mostEver < gang.replicas()) {
            // one replica per machine, and the fleet has too few machines that could ever take one
            return new Unplaced(UnplacedKind.CAN_NEVER_FIT, "a gang of " + gang.replicas() + " replicas is placed whole"
                    + " or not at all, one per machine, and " + (mostEver == 1 ? "1 machine" : mostEver + " machines")
                    + scope + " at most could ever take one of them", lastReplica == null ? null : lastReplica.rejectedBy());
        }
        UnplacedKind kind = everFits || lastReplica == null ? UnplacedKind.DOES_NOT_FIT_NOW : UnplacedKind.CAN_NEVER_FIT;
        String reason = "a gang of " + gang.replicas() + " replicas is placed whole or not at all; at most " + most
                + " fit at once (one per machine)" + (gang.gangScope() == null ? "" : " in one " + GangScopes.describe(gang.gangScope()))
                + (lastReplica == null ? "" : "; the next replica: " + lastReplica.reason())
                + (heldFor.contains(gang.jobId()) ? "; waiting long enough, it holds the room it found for itself" : "");
        return new Unplaced(kind, reason, lastReplica == null ? null : lastReplica.rejectedBy());
    }

    /** Why the job cannot fit, if the plan already knows it fits nowhere; null if it may fit. */
    private Unplaced knownNotToFit(PendingJob job) {
        if (!attributesNowhere.isEmpty()) {
            Unplaced nowhere = attributesNowhere.get(Attributes.of(job));
            if (nowhere != null) {
                return nowhere;
            }
        }
        if (!unplaceable.isEmpty()) {
            Shape shape = Shape.of(job);
            if (unplaceable.contains(shape)) {
                return explained.computeIfAbsent(shape, s -> explainer.explain(job).unplaced());
            }
        }
        return null;
    }

    private Unplaced explainAndRemember(PendingJob job) {
        Explainer.Explanation explanation = explainer.explain(job);
        Shape shape = Shape.of(job);
        unplaceable.add(shape);
        explained.put(shape, explanation.unplaced());
        if (explanation.attributesAlone()) {
            attributesNowhere.put(Attributes.of(job), explanation.unplaced());
        }
        return explanation.unplaced();
    }

    /** What decides whether, and where, a job can fit: all of it but the job's identity, order and strategy. */
    private record Shape(long cpuMillis, long memoryMb, int gpuCount, List<String> gpuTypes, String region,
                         Map<String, String> labels) {
        static Shape of(PendingJob job) {
            return new Shape(job.cpuMillis(), job.memoryMb(), job.gpuCount(), job.gpuTypes(), job.region(), job.labels());
        }
    }

    /** What the filters of stage ATTRIBUTE look at. */
    private record Attributes(String region, List<String> gpuTypes, boolean needsGpus, Map<String, String> labels) {
        static Attributes of(PendingJob job) {
            return new Attributes(job.region(), job.gpuTypes(), job.needsGpus(), job.labels());
        }
    }
}
