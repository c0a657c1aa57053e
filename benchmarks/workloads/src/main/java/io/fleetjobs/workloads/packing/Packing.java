package io.fleetjobs.workloads.packing;

import io.fleetjobs.workloads.packing.Cluster.Mix;
import io.fleetjobs.workloads.packing.Cluster.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongFunction;

/**
 * The placement-quality benchmark (docs/benchmarks.md, "Placement quality"): tasks arrive in order on a seeded
 * heterogeneous cluster and never leave; when the GPU demand that arrived reaches the cluster's GPUs, it reports
 * the GPUs left unallocated and the tasks that found no room, for the platform's engine beside the baselines.
 *
 * <pre>benchmarks/run packing [seeds] [machines] [first seed]</pre>
 */
public final class Packing {
    static final List<Mix> MIXES = List.of(
            new Mix("unrestricted", 0.3, 0.0, false),
            new Mix("a third restricted", 0.3, 0.33, false),
            new Mix("two thirds restricted", 0.3, 0.66, false),
            new Mix("GPU only, a third restricted", 0.0, 0.33, false),
            new Mix("a third restricted, scarce models in demand", 0.3, 0.33, true),
            new Mix("two thirds restricted, scarce models in demand", 0.3, 0.66, true));

    private Packing() {
    }

    /**
     * One policy's run on one cluster: the GPUs left unallocated (and their share), the tasks that found no room,
     * and whether the last task (the one whose demand reaches the cluster's GPUs) found room.
     */
    record Result(String policy, long unallocated, double unallocatedShare, int unplaced, int arrived, boolean lastPlaced) {
        /**
         * Whether the run placed every task but the last, which asked for more GPUs than were left: a policy that
         * places every task that fits when it comes can leave no fewer GPUs than that (only by failing an earlier one).
         */
        boolean allButTheLastPlaced() {
            return unplaced == 1 && !lastPlaced;
        }
    }

    static Result run(Baselines.Policy policy, List<Cluster.Machine> machines, List<Task> tasks) {
        Fleet fleet = new Fleet(machines);
        long demanded = 0;
        int unplaced = 0;
        int arrived = 0;
        boolean lastPlaced = true;
        for (Task task : tasks) {
            if (demanded >= fleet.totalGpus) {
                break;
            }
            arrived++;
            demanded += task.gpus();
            int chosen = policy.choose(task, fleet);
            lastPlaced = chosen >= 0;
            if (chosen < 0) {
                unplaced++;
            } else {
                fleet.place(task, chosen);
            }
        }
        long unallocated = fleet.totalGpus - fleet.allocatedGpus();
        return new Result(policy.name(), unallocated, (double) unallocated / fleet.totalGpus, unplaced, arrived, lastPlaced);
    }

    /**
     * A floor no policy can go below: the GPUs that tasks restricted to one model asked for beyond what the model
     * has (those tasks cannot all be placed, so as many GPUs elsewhere stay free), less the demand that arrived
     * beyond the cluster's GPUs, as a share of them.
     */
    static double floor(List<Cluster.Machine> machines, List<Task> tasks) {
        java.util.Map<String, Long> capacity = new java.util.HashMap<>();
        long total = 0;
        for (Cluster.Machine m : machines) {
            if (m.model() != null) {
                capacity.merge(m.model(), (long) m.gpus(), Long::sum);
                total += m.gpus();
            }
        }
        java.util.Map<String, Long> restricted = new java.util.HashMap<>();
        long demanded = 0;
        for (Task task : tasks) {
            if (demanded >= total) {
                break;
            }
            demanded += task.gpus();
            if (task.models().size() == 1) {
                restricted.merge(task.models().getFirst(), (long) task.gpus(), Long::sum);
            }
        }
        long excess = 0;
        for (var e : restricted.entrySet()) {
            excess += Math.max(0, e.getValue() - capacity.getOrDefault(e.getKey(), 0L));
        }
        return Math.max(0, excess - (demanded - total)) / (double) total;
    }

    static List<LongFunction<Baselines.Policy>> policies() {
        return List.of(seed -> new PlatformPolicy("platform", 5000), seed -> new PlatformPolicy("bin-pack only", 0),
                seed -> Baselines.firstFit(), seed -> Baselines.bestFit(),
                seed -> Baselines.worstFit(), Baselines::random);
    }

    /** The platform against one baseline on one cluster. */
    enum Verdict {
        /** strictly fewer GPUs unallocated, or none where the baseline leaves none */
        FEWER,
        /** as many, both having placed every task but the last, which asked for more than was left */
        AS_FEW_AS_POSSIBLE,
        MORE_OR_AS_MANY;

        static Verdict of(Result platform, Result baseline) {
            if (platform.unallocated() < baseline.unallocated() || platform.unallocated() == 0) {
                return FEWER;
            }
            if (platform.unallocated() == baseline.unallocated() && platform.allButTheLastPlaced()
                    && baseline.allButTheLastPlaced()) {
                return AS_FEW_AS_POSSIBLE;
            }
            return MORE_OR_AS_MANY;
        }
    }

    /** The baselines: every policy but the platform's (the first) and the engine without the demand (the second). */
    private static final int FIRST_BASELINE = 2;
    private static final int FIRST_FIT = 2;

    public static void main(String[] args) {
        int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int machineCount = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int firstSeed = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        int lastSeed = firstSeed + seeds - 1;
        System.out.printf("%d machines, seeds %d to %d; GPUs unallocated when the GPU demand that arrived equals the cluster's GPUs%n%n",
                machineCount, firstSeed, lastSeed);
        List<LongFunction<Baselines.Policy>> policies = policies();
        List<String> names = policies.stream().map(p -> p.apply(0).name()).toList();
        StringBuilder header = new StringBuilder("| mix | seed | GPUs | floor |");
        StringBuilder rule = new StringBuilder("| --- | --- | --- | --- |");
        for (String name : names) {
            header.append(' ').append(name).append(" |");
            rule.append(" --- |");
        }
        System.out.println(header + " platform against every baseline |");
        System.out.println(rule + " --- |");
        StringBuilder means = new StringBuilder();
        StringBuilder verdicts = new StringBuilder();
        for (Mix mix : MIXES) {
            double[] sums = new double[policies.size()];
            double floors = 0;
            int fewer = 0;
            int asFew = 0;
            List<String> lost = new ArrayList<>();
            int half = 0;
            int halfBelowFloor = 0;
            List<String> halfMissed = new ArrayList<>();
            for (int seed = firstSeed; seed <= lastSeed; seed++) {
                Random random = new Random(seed * 7919L);
                List<Cluster.Machine> machines = Cluster.machines(machineCount, 0.2, random);
                long gpus = machines.stream().mapToLong(Cluster.Machine::gpus).sum();
                List<Task> tasks = Cluster.tasks(mix, gpus, random);
                List<Result> results = new ArrayList<>();
                for (LongFunction<Baselines.Policy> p : policies) {
                    results.add(run(p.apply(seed), machines, tasks));
                }
                double floor = floor(machines, tasks);
                long floorGpus = Math.round(floor * gpus);
                floors += floor;
                StringBuilder row = new StringBuilder(String.format("| %s | %d | %d | %d |", mix.name(), seed, gpus, floorGpus));
                for (int i = 0; i < results.size(); i++) {
                    Result r = results.get(i);
                    sums[i] += r.unallocatedShare();
                    row.append(String.format(" %d (%d) |", r.unallocated(), r.unplaced()));
                }
                Result platform = results.getFirst();
                boolean tie = false;
                List<String> beaten = new ArrayList<>();
                for (int i = FIRST_BASELINE; i < results.size(); i++) {
                    Verdict verdict = Verdict.of(platform, results.get(i));
                    tie |= verdict == Verdict.AS_FEW_AS_POSSIBLE;
                    if (verdict == Verdict.MORE_OR_AS_MANY) {
                        beaten.add(results.get(i).policy() + " " + results.get(i).unallocated());
                    }
                }
                String verdict;
                if (!beaten.isEmpty()) {
                    verdict = "not fewer than " + String.join(", ", beaten);
                    lost.add(seed + " (" + platform.unallocated() + " against " + String.join(", ", beaten) + ")");
                } else if (tie) {
                    verdict = "fewer, or as many where every task but the last was placed";
                    asFew++;
                } else {
                    verdict = "fewer";
                    fewer++;
                }
                System.out.println(row + " " + verdict + " |");
                if (mix.restrictedShare() > 0) {
                    long firstFit = results.get(FIRST_FIT).unallocated();
                    if (2 * platform.unallocated() <= firstFit) {
                        half++;
                    } else if (2 * floorGpus > firstFit) {
                        halfBelowFloor++;
                    } else {
                        halfMissed.add(seed + " (" + platform.unallocated() + " against " + firstFit + ")");
                    }
                }
            }
            int n = lastSeed - firstSeed + 1;
            double floorMean = floors / n;
            StringBuilder mean = new StringBuilder(String.format("| %s | %.1f%% |", mix.name(), 100 * floorMean));
            for (int i = 0; i < sums.length; i++) {
                double share = sums[i] / n;
                String cell = String.format("%.1f%%", 100 * share);
                if (floorMean > 0) {
                    cell += String.format(" (+%.1f)", 100 * (share - floorMean));
                }
                mean.append(i == 0 ? " **" + cell + "** |" : " " + cell + " |");
            }
            means.append(mean).append('\n');
            verdicts.append(String.format("%s: fewer than every baseline on %d of %d seeds", mix.name(), fewer, n));
            if (asFew > 0) {
                verdicts.append(String.format(", as few as possible on %d (it and a baseline placed every task but the last)", asFew));
            }
            verdicts.append(lost.isEmpty() ? "" : "; not on seed " + String.join(", seed ", lost));
            if (mix.restrictedShare() > 0) {
                verdicts.append(String.format("; at most half of first-fit's on %d", half));
                if (halfBelowFloor > 0) {
                    verdicts.append(String.format(", half of first-fit's below the floor (no policy can) on %d", halfBelowFloor));
                }
                if (!halfMissed.isEmpty()) {
                    verdicts.append(", missed on seed ").append(String.join(", seed ", halfMissed));
                }
            }
            verdicts.append('\n');
        }
        System.out.println("\ncells: GPUs unallocated (tasks that found no room, of every kind); floor in GPUs");
        System.out.printf("%nMeans over the seeds, GPUs unallocated as a share of the cluster's (above the floor, in points, where it is above 0):%n%n");
        StringBuilder meansHeader = new StringBuilder("| mix | floor |");
        StringBuilder meansRule = new StringBuilder("| --- | --- |");
        for (int i = 0; i < names.size(); i++) {
            meansHeader.append(i == 0 ? " **" + names.get(i) + "** |" : " " + names.get(i) + " |");
            meansRule.append(" --- |");
        }
        System.out.println(meansHeader);
        System.out.println(meansRule);
        System.out.print(means);
        System.out.println();
        System.out.print(verdicts);
    }
}
