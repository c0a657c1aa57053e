package io.fleetjobs.workloads.packing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * A seeded heterogeneous cluster and its stream of tasks, for the placement-quality benchmark: several GPU models
 * in uneven numbers, CPU-only machines beside them, machines of 1 to 8 GPUs; tasks CPU-only or of 1 to 8 GPUs, a
 * share of the GPU tasks restricted to one or two models, sizes drawn from skewed distributions.
 */
final class Cluster {
    /** The GPU models, and the share of the GPU machines each has: uneven, the last ones scarce. */
    static final String[] MODELS = {"A10", "L4", "A100", "H100", "H200"};
    static final double[] MODEL_SHARES = {0.40, 0.25, 0.17, 0.12, 0.06};
    private static final int[] GPUS_PER_MACHINE = {1, 2, 4, 8};
    private static final double[] GPUS_PER_MACHINE_SHARES = {0.10, 0.10, 0.25, 0.55};
    private static final int[] GPUS_PER_TASK = {1, 2, 4, 8};
    private static final double[] GPUS_PER_TASK_SHARES = {0.55, 0.20, 0.15, 0.10};

    private Cluster() {
    }

    /** One machine: {@code model} null for a CPU-only one. */
    record Machine(String id, String model, long cpuMillis, long memoryMb, int gpus) {
    }

    /** One task: {@code models} the GPU models it may use, empty for any (or for a CPU-only task). */
    record Task(int n, long cpuMillis, long memoryMb, int gpus, List<String> models) {
    }

    /**
     * How tasks are drawn.
     *
     * @param name            how the report names it
     * @param cpuTaskShare    the share of tasks that need no GPU
     * @param restrictedShare the share of GPU tasks that name one or two models they must have
     * @param scarceInDemand  whether restricted tasks name each model alike (the scarce ones are then asked for
     *                        beyond what they have: a floor no policy goes below) rather than as often as the
     *                        model is found in the cluster
     */
    record Mix(String name, double cpuTaskShare, double restrictedShare, boolean scarceInDemand) {
    }

    static List<Machine> machines(int count, double cpuOnlyShare, Random random) {
        List<Machine> machines = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (random.nextDouble() < cpuOnlyShare) {
                machines.add(new Machine(null, null, 64_000, 256 * 1024, 0));
                continue;
            }
            String model = MODELS[pick(MODEL_SHARES, random)];
            int gpus = GPUS_PER_MACHINE[pick(GPUS_PER_MACHINE_SHARES, random)];
            // 12 cores and 96 GiB per GPU, as GPU servers are built (an 8-GPU machine: 96 cores, 768 GiB)
            machines.add(new Machine(null, model, 12_000L * gpus, 96L * 1024 * gpus, gpus));
        }
        // ids in no order of model or size, so that first-fit's fixed order favours nothing
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        List<Machine> named = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Machine m = machines.get(i);
            named.add(new Machine(String.format("m%05d", order.get(i)), m.model(), m.cpuMillis(), m.memoryMb(), m.gpus()));
        }
        named.sort((a, b) -> a.id().compareTo(b.id()));
        return named;
    }

    /** Tasks in arrival order until their GPU demand reaches {@code gpuDemand}, then as many again: enough for any run. */
    static List<Task> tasks(Mix mix, long gpuDemand, Random random) {
        List<Task> tasks = new ArrayList<>();
        long demanded = 0;
        while (demanded < 2 * gpuDemand) {
            int n = tasks.size();
            if (random.nextDouble() < mix.cpuTaskShare()) {
                // CPU-only: mostly small, a long tail (lognormal-ish: 0.5 to 32 cores)
                long cpu = Math.round(500 * Math.pow(2, Math.min(6, Math.abs(random.nextGaussian()) * 2.2)));
                tasks.add(new Task(n, cpu, cpu * 4, 0, List.of()));
                continue;
            }
            int gpus = GPUS_PER_TASK[pick(GPUS_PER_TASK_SHARES, random)];
            // 2 to 12 cores and 8 to 96 GiB per GPU, skewed small
            double perGpu = 2 + 10 * Math.pow(random.nextDouble(), 2);
            long cpu = Math.round(perGpu * 1000) * gpus;
            long memory = Math.round(perGpu * 8 * 1024) * gpus;
            List<String> models = List.of();
            if (random.nextDouble() < mix.restrictedShare()) {
                String first = restrictedModel(mix, random);
                if (random.nextDouble() < 0.3) {
                    String second = restrictedModel(mix, random);
                    models = second.equals(first) ? List.of(first) : List.of(first, second);
                } else {
                    models = List.of(first);
                }
            }
            tasks.add(new Task(n, cpu, memory, gpus, models));
            demanded += gpus;
        }
        return tasks;
    }

    private static String restrictedModel(Mix mix, Random random) {
        return MODELS[mix.scarceInDemand() ? random.nextInt(MODELS.length) : pick(MODEL_SHARES, random)];
    }

    private static int pick(double[] shares, Random random) {
        double r = random.nextDouble();
        for (int i = 0; i < shares.length; i++) {
            r -= shares[i];
            if (r < 0) {
                return i;
            }
        }
        return shares.length - 1;
    }
}
