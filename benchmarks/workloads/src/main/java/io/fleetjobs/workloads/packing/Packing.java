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
 * <pre>benchmarks/run packing [seeds] [machines]</pre>
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

    /** One policy's run on one cluster: the share of GPUs unallocated and the tasks that found no room. */
    record Result(String policy, double unallocatedShare, int unplaced, int arrived) {
    }

    static Result run(Baselines.Policy policy, List<Cluster.Machine> machines, List<Task> tasks) {
        Fleet fleet = new Fleet(machines);
        long demanded = 0;
        int unplaced = 0;
        int arrived = 0;
        for (Task task : tasks) {
            if (demanded >= fleet.totalGpus) {
                break;
            }
            arrived++;
            demanded += task.gpus();
            int chosen = policy.choose(task, fleet);
            if (chosen < 0) {
                unplaced++;
            } else {
                fleet.place(task, chosen);
            }
        }
        double unallocated = (double) (fleet.totalGpus - fleet.allocatedGpus()) / fleet.totalGpus;
        return new Result(policy.name(), unallocated, unplaced, arrived);
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

    public static void main(String[] args) {
        int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int machineCount = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        System.out.printf("%d machines, %d seeds; GPUs unallocated when the GPU demand that arrived equals the cluster's GPUs%n%n",
                machineCount, seeds);
        List<LongFunction<Baselines.Policy>> policies = policies();
        StringBuilder header = new StringBuilder("| mix | seed | GPUs | floor |");
        StringBuilder rule = new StringBuilder("| --- | --- | --- | --- |");
        for (LongFunction<Baselines.Policy> p : policies) {
            header.append(' ').append(p.apply(0).name()).append(" |");
            rule.append(" --- |");
        }
        System.out.println(header);
        System.out.println(rule);
        for (Mix mix : MIXES) {
            double[] sums = new double[policies.size()];
            double floors = 0;
            for (int seed = 1; seed <= seeds; seed++) {
                Random random = new Random(seed * 7919L);
                List<Cluster.Machine> machines = Cluster.machines(machineCount, 0.2, random);
                long gpus = machines.stream().mapToLong(Cluster.Machine::gpus).sum();
                List<Task> tasks = Cluster.tasks(mix, gpus, random);
                List<Result> results = new ArrayList<>();
                for (LongFunction<Baselines.Policy> p : policies) {
                    results.add(run(p.apply(seed), machines, tasks));
                }
                double floor = floor(machines, tasks);
                floors += floor;
                StringBuilder row = new StringBuilder(String.format("| %s | %d | %d | %.1f%% |", mix.name(), seed, gpus,
                        100 * floor));
                for (int i = 0; i < results.size(); i++) {
                    Result r = results.get(i);
                    sums[i] += r.unallocatedShare();
                    row.append(String.format(" %.1f%% (%d) |", 100 * r.unallocatedShare(), r.unplaced()));
                }
                System.out.println(row);
            }
            StringBuilder mean = new StringBuilder(String.format("| %s | mean | | %.1f%% |", mix.name(), 100 * floors / seeds));
            for (double sum : sums) {
                mean.append(String.format(" **%.1f%%** |", 100 * sum / seeds));
            }
            System.out.println(mean);
        }
        System.out.println("\ncells: GPUs unallocated (tasks that found no room, of every kind)");
    }
}
