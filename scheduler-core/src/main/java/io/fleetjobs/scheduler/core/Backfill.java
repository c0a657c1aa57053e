package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.UnplacedKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Backfill, as Slurm does it: a job that finds no room now may run on the room a due gang holds ({@link GangHolds}) when,
 * by its time limit, it will have ended before the gang could start anyway. Decided purely, after the plan that held.
 *
 * <p>The rules, in order:
 * <ol>
 *   <li><b>A gang's start</b>, by the time limits of what runs: the gang lacks {@code missing} machines (its replicas
 *       less the room it holds). On each machine that would take one of its replicas if enough of what runs there
 *       ended (every filter but free capacity, in the scope of the room it holds) and that holds none of its replicas,
 *       the attempts ending first by their limits leave room for a replica at some time; the gang can start by the
 *       {@code missing}-th earliest of those times. An attempt without a limit ends at no known time: when fewer than
 *       {@code missing} machines free at known times, the gang's start is unknown and its room takes no backfill.</li>
 *   <li><b>Who backfills</b>: a job (never a gang) that the plan left without room now, with a time limit, on the room
 *       of gangs whose start is no earlier than now plus its limit plus {@code margin} (its start, its kill grace, the
 *       report of its end).</li>
 *   <li><b>Where</b>: the engine itself places it (the same filters, scores and quotas), in the order the plan looked
 *       at the jobs, on the held machines it may use alone, their held room free and the plan's placements counted.</li>
 *   <li>A gang's hold on a machine that takes a backfilled job is let go: that room is the job's until it ends, before
 *       the gang can start; the gang holds again whatever it finds at its next plan.</li>
 * </ol>
 * The start is what the limits promise, not a forecast: attempts that end early bring it forward, and a job backfilled
 * meanwhile may then hold the gang up until its own limit, never past the start it was admitted against.
 */
public final class Backfill {

    /** A live attempt's room on its machine and when, by its time limit, it will have ended. */
    public record Ending(Amounts room, long endsAtMillis) {
        /** When an attempt without a time limit ends. */
        public static final long NEVER = Long.MAX_VALUE;

        public Ending {
            Objects.requireNonNull(room, "room");
        }
    }

    private Backfill() {
    }

    /**
     * The plan with jobs backfilled onto the room its gangs hold ({@code plan} itself when none held, or none could).
     * Each holding gang's explanation says when it can start by the limits of what runs, or why that is unknown.
     *
     * @param snapshot the snapshot the plan was made on
     * @param jobs     the jobs the plan decided
     * @param limits   the jobs' time limits, by job id; a job missing has none
     * @param ending   the live attempts, by machine id, with when each ends by its limit
     * @param margin   added to a backfilled job's limit: its start, its kill grace, the report of its end
     */
    public static Plan plan(PlacementEngine engine, Snapshot snapshot, List<PendingJob> jobs, Plan plan,
            Map<UUID, Duration> limits, Map<String, List<Ending>> ending, Duration margin, Instant now) {
        if (plan.held().isEmpty()) {
            return plan;
        }
        Map<UUID, PendingJob> byId = new HashMap<>();
        jobs.forEach(j -> byId.put(j.jobId(), j));
        long nowMillis = now.toEpochMilli();
        Snapshot after = snapshot.withPlaced(plan.assignments());
        Map<String, List<Ending>> ends = new HashMap<>();
        ending.forEach((machine, e) -> ends.put(machine, new ArrayList<>(e)));
        for (Assignment a : plan.assignments()) { // placed by this plan: they end by their limits from now
            Duration limit = limits.get(a.jobId());
            ends.computeIfAbsent(a.machineId(), m -> new ArrayList<>())
                    .add(new Ending(a.amounts(), limit == null ? Ending.NEVER : nowMillis + limit.toMillis()));
        }
        Map<UUID, List<Assignment>> heldByGang = new LinkedHashMap<>();
        plan.held().forEach(h -> heldByGang.computeIfAbsent(h.jobId(), g -> new ArrayList<>()).add(h));
        Map<UUID, Long> starts = new LinkedHashMap<>();
        Map<String, Long> window = new TreeMap<>(); // by held machine: the earliest start of the gangs holding it
        heldByGang.forEach((gang, held) -> {
            long start = start(after, byId.get(gang), held, ends, nowMillis);
            starts.put(gang, start);
            held.forEach(h -> window.merge(h.machineId(), start, Math::min));
        });

        List<Assignment> backfilled = new ArrayList<>();
        Set<String> taken = new HashSet<>();
        Map<String, MachineView> lendable = new TreeMap<>(); // the held machines, as the plan and backfill leave them
        after.machines().stream().filter(m -> window.containsKey(m.id())).forEach(m -> lendable.put(m.id(), m));
        Map<UUID, TenantView> tenants = after.tenants();
        for (Map.Entry<UUID, Unplaced> e : plan.unplaced().entrySet()) {
            PendingJob job = byId.get(e.getKey());
            Duration limit = limits.get(e.getKey());
            if (job == null || job.isGang() || limit == null || e.getValue().kind() != UnplacedKind.DOES_NOT_FIT_NOW) {
                continue;
            }
            long endsBy = nowMillis + limit.plus(margin).toMillis();
            List<MachineView> room = lendable.values().stream()
                    .filter(m -> window.get(m.id()) != Ending.NEVER && endsBy <= window.get(m.id())).toList();
            if (room.isEmpty()) {
                continue;
            }
            Snapshot lent = new Snapshot(room, tenants, after.heartbeatFreshness(), after.gpuDemand());
            Plan one = engine.plan(lent, List.of(job));
            if (!one.assignments().isEmpty()) {
                Assignment a = one.assignments().getFirst();
                backfilled.add(a);
                taken.add(a.machineId());
                Snapshot then = lent.withPlaced(one.assignments());
                then.machines().forEach(m -> lendable.put(m.id(), m));
                tenants = then.tenants();
            }
        }

        List<Assignment> assignments = new ArrayList<>(plan.assignments());
        assignments.addAll(backfilled);
        Set<UUID> placed = new HashSet<>();
        backfilled.forEach(a -> placed.add(a.jobId()));
        Map<UUID, Unplaced> unplaced = new LinkedHashMap<>();
        plan.unplaced().forEach((id, why) -> {
            if (placed.contains(id)) {
                return;
            }
            Long start = starts.get(id);
            unplaced.put(id, start == null ? why
                    : new Unplaced(why.kind(), why.reason() + explain(start, nowMillis), why.rejectedBy()));
        });
        List<Assignment> held = plan.held().stream().filter(h -> !taken.contains(h.machineId())).toList();
        return new Plan(assignments, unplaced, held);
    }

    /** When the gang can start by the limits of what runs, {@link Ending#NEVER} if unknown. */
    static long start(Snapshot after, PendingJob gang, List<Assignment> held, Map<String, List<Ending>> ends,
            long nowMillis) {
        if (gang == null) {
            return Ending.NEVER;
        }
        int missing = gang.replicas() - held.size();
        if (missing <= 0) {
            return nowMillis;
        }
        Set<String> holding = new HashSet<>();
        held.forEach(h -> holding.add(h.machineId()));
        PendingJob replica = inScopeOf(gang, after, held.getFirst().machineId());
        FilterChain filters = FilterChain.beforeFreeCapacity(after.heartbeatFreshness()).forJob(replica);
        Amounts need = new Amounts(replica.cpuMillis(), replica.memoryMb(), replica.gpuCount());
        List<Long> times = new ArrayList<>();
        for (MachineView view : after.machines()) {
            if (holding.contains(view.id()) || !filters.accepts(replica, new MachineState(view))) {
                continue;
            }
            long at = roomAt(view.machine(), need, ends.getOrDefault(view.id(), List.of()), nowMillis);
            if (at != Ending.NEVER) {
                times.add(at);
            }
        }
        if (times.size() < missing) {
            return Ending.NEVER;
        }
        times.sort(null);
        return times.get(missing - 1);
    }

    /** When the machine has room for {@code need} (and one more attempt), the attempts on it ending by their limits. */
    static long roomAt(FleetMachine machine, Amounts need, List<Ending> ends, long nowMillis) {
        Amounts free = machine.free();
        long attempts = machine.freeAttempts();
        if (need.fitsIn(free) && attempts >= 1) {
            return nowMillis;
        }
        List<Ending> inOrder = new ArrayList<>(ends);
        inOrder.sort(Comparator.comparingLong(Ending::endsAtMillis));
        for (Ending e : inOrder) {
            if (e.endsAtMillis() == Ending.NEVER) {
                return Ending.NEVER;
            }
            free = free.plus(e.room());
            attempts++;
            if (need.fitsIn(free) && attempts >= 1) {
                return Math.max(nowMillis, e.endsAtMillis());
            }
        }
        return Ending.NEVER;
    }

    /** One replica of the gang, held to the scope (region, or value of its label) of the machine it holds room on. */
    private static PendingJob inScopeOf(PendingJob gang, Snapshot snapshot, String machineId) {
        FleetMachine machine = snapshot.machines().stream().filter(m -> m.id().equals(machineId)).findFirst()
                .map(MachineView::machine).orElseThrow();
        String scope = gang.gangScope();
        if (PendingJob.SAME_REGION.equals(scope)) {
            return gang.replicaIn(machine.region(), gang.labels());
        }
        if (scope != null) {
            String key = scope.substring(PendingJob.SAME_LABEL.length());
            Map<String, String> labels = new TreeMap<>(gang.labels());
            labels.put(key, machine.labels().get(key));
            return gang.replicaIn(gang.region(), labels);
        }
        return gang.replicaIn(gang.region(), gang.labels());
    }

    /** What the gang's explanation adds; the start to the minute, so that it reads the same from one plan to the next. */
    private static String explain(long start, long nowMillis) {
        if (start == Ending.NEVER) {
            return "; what runs on the machines it still needs has no time limit, so no time is known by which it can"
                    + " start, and it lends its room to no job meanwhile";
        }
        if (start <= nowMillis) {
            return "; by the time limits of what runs, it can start as soon as attempts past their limits have ended";
        }
        long minute = 60_000;
        return "; by the time limits of what runs, it can start by " + Instant.ofEpochMilli((start + minute - 1) / minute * minute)
                + ", and jobs that end before then run on its room meanwhile (backfill)";
    }
}
