package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Preemption, decided purely: a job that fits nowhere may end lower-priority attempts to make room.
 *
 * <p>The rules, in order:
 * <ol>
 *   <li>Only attempts of a strictly lower priority, of jobs that did not opt out, and of the tenants the
 *       {@link Scope} allows (by default its own, and those holding more than their fair share), are candidates.</li>
 *   <li>Only machines that would take the job if they were empty enough: every filter but free capacity accepts
 *       them (region, isolation, GPU type, labels, total size, health). A machine where even all candidates'
 *       room would not make the job fit is never touched: no preemption leaves the preemptor unplaced.</li>
 *   <li>On each machine the victims are the fewest whose room makes the job fit; among sets of that size, the one
 *       whose highest priority is lowest, then whose priorities sum lowest, then the most recently started
 *       (least work lost). Sets are enumerated by size while that is cheap ({@link #EXACT_SEARCH_LIMIT}); past it,
 *       candidates are taken in that order and then given back, highest priority first, while the rest still
 *       make room (Kubernetes' "reprieve"), which is minimal but may not be the fewest.</li>
 *   <li>Across machines, the machine whose victims are best by the same order; ties to the smaller machine id.</li>
 * </ol>
 */
public final class Preemptions {
    /** How many candidate sets one machine may try before the search falls back to take-then-reprieve. */
    static final int EXACT_SEARCH_LIMIT = 4096;

    /** Whose attempts a job may preempt. */
    public enum Scope {
        /** Any tenant's. */
        ANY_TENANT,
        /** Only its own tenant's. */
        OWN_TENANT,
        /**
         * Its own tenant's, and those of tenants that hold more than their weighted fair share of the fleet: a
         * tenant's dominant share over its weight above 1 / (the weights of the tenants holding room, and the
         * preemptor's, summed). A tenant within its share keeps its work whatever priorities others give theirs.
         */
        OWN_OR_OVER_SHARE
    }

    private static final Comparator<RunningAttempt> PREFERRED_VICTIM = Comparator
            .comparingInt(RunningAttempt::priority).thenComparing(Comparator.comparingLong(RunningAttempt::started).reversed())
            .thenComparing(RunningAttempt::jobId);

    private Preemptions() {
    }

    /**
     * Where the job could run by preempting, and whom; empty when no machine can make room (or the job fits
     * without preempting: that is the engine's plan, not this).
     *
     * @param running the attempts holding room, by machine id
     */
    public static Optional<Preemption> plan(Snapshot snapshot, PendingJob job, Map<String, List<RunningAttempt>> running,
            Scope scope) {
        FilterChain filters = FilterChain.beforeFreeCapacity(snapshot.heartbeatFreshness()).forJob(job);
        Amounts need = new Amounts(job.cpuMillis(), job.memoryMb(), job.gpuCount());
        Predicate<UUID> victimTenant = victimTenants(snapshot, job, scope);
        String bestMachine = null;
        Choice best = null;
        for (MachineView view : snapshot.machines()) {
            MachineState machine = new MachineState(view);
            if (!filters.accepts(job, machine)) {
                continue;
            }
            Amounts free = view.machine().free();
            // each victim frees one of the machine's attempts at once besides its room
            int attemptsShort = Math.max(0, 1 - view.machine().freeAttempts());
            if (need.fitsIn(free) && attemptsShort == 0) {
                return Optional.empty(); // it fits as it is
            }
            List<RunningAttempt> candidates = new ArrayList<>();
            for (RunningAttempt a : running.getOrDefault(view.id(), List.of())) {
                if (a.preemptible() && a.priority() < job.priority() && victimTenant.test(a.tenantId())) {
                    candidates.add(a);
                }
            }
            candidates.sort(PREFERRED_VICTIM);
            Choice choice = victims(candidates, need.minus(free), attemptsShort);
            if (choice != null && (best == null || choice.compareTo(best) < 0)) {
                best = choice;
                bestMachine = view.id();
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        return Optional.of(new Preemption(job.jobId(), bestMachine, best.victims,
                reason(job, bestMachine, best.victims)));
    }

    /** The tenants whose attempts the job may end, as the scope says. */
    static Predicate<UUID> victimTenants(Snapshot snapshot, PendingJob job, Scope scope) {
        return switch (scope) {
            case ANY_TENANT -> tenant -> true;
            case OWN_TENANT -> job.tenantId()::equals;
            case OWN_OR_OVER_SHARE -> {
                TenantLedger ledger = new TenantLedger(snapshot);
                Set<UUID> contending = new HashSet<>(Set.of(job.tenantId()));
                snapshot.tenants().values().stream().filter(t -> t.usedCpuMillis() + t.usedMemoryMb() + t.usedGpus() > 0)
                        .forEach(t -> contending.add(t.id()));
                double fair = 1.0 / contending.stream().mapToInt(t -> snapshot.tenant(t).weight()).sum();
                Set<UUID> over = new HashSet<>();
                contending.forEach(t -> {
                    if (ledger.dominantShare(t) > fair) {
                        over.add(t);
                    }
                });
                yield tenant -> tenant.equals(job.tenantId()) || over.contains(tenant);
            }
        };
    }

    /**
     * The preemptor's reason, which its tenant reads: its own victims by job id, another tenant's only by priority (a
     * tenant sees nothing of another's jobs, not even their ids).
     */
    static String reason(PendingJob job, String machine, List<RunningAttempt> victims) {
        StringBuilder ended = new StringBuilder();
        for (RunningAttempt v : victims) {
            ended.append(ended.isEmpty() ? "" : ", ")
                    .append(v.tenantId().equals(job.tenantId()) ? v.jobId() : "a job of another tenant")
                    .append(" (priority ").append(v.priority()).append(')');
        }
        return "preempts " + victims.size() + " lower-priority attempt" + (victims.size() == 1 ? "" : "s") + " on " + machine
                + " for job " + job.jobId() + " (priority " + job.priority() + "): " + ended;
    }

    /**
     * The best victims among the candidates (in preferred order) whose room covers the deficit and who are at least
     * {@code atLeast} (the attempts the machine must free to take one more); null if none do.
     */
    static Choice victims(List<RunningAttempt> candidates, Amounts deficit, int atLeast) {
        Amounts all = Amounts.ZERO;
        for (RunningAttempt c : candidates) {
            all = all.plus(c.held());
        }
        int n = candidates.size();
        if (!covers(all, deficit) || n < atLeast) {
            return null;
        }
        for (int k = Math.max(1, atLeast); k <= n; k++) {
            if (combinations(n, k) > EXACT_SEARCH_LIMIT) {
                return takeThenReprieve(candidates, deficit, atLeast);
            }
            Choice best = bestOfSize(candidates, deficit, k);
            if (best != null) {
                return best;
            }
        }
        throw new IllegalStateException("all candidates cover the deficit, so some set does");
    }

    private static Choice bestOfSize(List<RunningAttempt> candidates, Amounts deficit, int k) {
        int[] at = new int[k];
        for (int i = 0; i < k; i++) {
            at[i] = i;
        }
        Choice best = null;
        while (true) {
            Amounts room = Amounts.ZERO;
            List<RunningAttempt> set = new ArrayList<>(k);
            for (int i : at) {
                room = room.plus(candidates.get(i).held());
                set.add(candidates.get(i));
            }
            if (covers(room, deficit)) {
                Choice choice = new Choice(set);
                if (best == null || choice.compareTo(best) < 0) {
                    best = choice;
                }
            }
            int i = k - 1;
            while (i >= 0 && at[i] == candidates.size() - k + i) {
                i--;
            }
            if (i < 0) {
                return best;
            }
            at[i]++;
            for (int j = i + 1; j < k; j++) {
                at[j] = at[j - 1] + 1;
            }
        }
    }

    private static Choice takeThenReprieve(List<RunningAttempt> candidates, Amounts deficit, int atLeast) {
        List<RunningAttempt> taken = new ArrayList<>();
        Amounts room = Amounts.ZERO;
        for (RunningAttempt c : candidates) {
            if (covers(room, deficit) && taken.size() >= Math.max(1, atLeast)) {
                break;
            }
            taken.add(c);
            room = room.plus(c.held());
        }
        for (int i = taken.size() - 1; i >= 0 && taken.size() > Math.max(1, atLeast); i--) { // least preferred first
            Amounts without = room.minus(taken.get(i).held());
            if (covers(without, deficit)) {
                room = without;
                taken.remove(i);
            }
        }
        return new Choice(taken);
    }

    private static boolean covers(Amounts room, Amounts deficit) {
        return deficit.fitsIn(room);
    }

    private static long combinations(int n, int k) {
        long c = 1;
        for (int i = 1; i <= k; i++) {
            c = c * (n - k + i) / i;
            if (c > Integer.MAX_VALUE) {
                return c;
            }
        }
        return c;
    }

    /** A set of victims, ordered by how little it costs: fewer, then lower highest priority, lower sum, later start. */
    static final class Choice implements Comparable<Choice> {
        final List<RunningAttempt> victims;
        private final int highest;
        private final long sum;
        private final long earliestStart;

        Choice(List<RunningAttempt> victims) {
            this.victims = List.copyOf(victims);
            int h = Integer.MIN_VALUE;
            long s = 0;
            long e = Long.MAX_VALUE;
            for (RunningAttempt v : victims) {
                h = Math.max(h, v.priority());
                s += v.priority();
                e = Math.min(e, v.started());
            }
            this.highest = h;
            this.sum = s;
            this.earliestStart = e;
        }

        @Override
        public int compareTo(Choice other) {
            int c = Integer.compare(victims.size(), other.victims.size());
            if (c == 0) {
                c = Integer.compare(highest, other.highest);
            }
            if (c == 0) {
                c = Long.compare(sum, other.sum);
            }
            if (c == 0) {
                c = Long.compare(other.earliestStart, earliestStart); // started later is better
            }
            return c;
        }
    }
}
