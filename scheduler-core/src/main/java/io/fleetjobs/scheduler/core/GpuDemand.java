package io.fleetjobs.scheduler.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What recent GPU demand asks of each GPU model: the share of all GPUs demanded that only that model can serve
 * (a job restricted to a few models counts a part for each). The placement engine weighs a model's free GPUs
 * against it ({@link GpuPressure}), so that a job that could run anywhere does not take the GPUs the jobs that
 * can run only there will need. Immutable; {@link Tracker} keeps it from the jobs as they come.
 *
 * @param restrictedShare by GPU model, from 0 to 1; a model not named has none
 * @param sizeShare       the share of GPU jobs asking for 1, 2, … {@link #MAX_SIZE} GPUs (index 0 for 1 GPU; larger
 *                        asks count as the largest); empty when nothing is known
 * @param cpuMillisPerGpu what GPU jobs ask for beside each GPU, on average
 * @param memoryMbPerGpu  likewise, memory
 */
public record GpuDemand(Map<String, Double> restrictedShare, List<Double> sizeShare, long cpuMillisPerGpu,
                        long memoryMbPerGpu) {
    /** The GPU counts the size distribution tells apart. */
    public static final int MAX_SIZE = 8;
    /** Nothing known: every model is as good as another (the engine then bin-packs as before). */
    public static final GpuDemand NONE = new GpuDemand(Map.of());

    /** A demand that says nothing of sizes. */
    public GpuDemand(Map<String, Double> restrictedShare) {
        this(restrictedShare, List.of(), 0, 0);
    }

    public GpuDemand {
        restrictedShare = Map.copyOf(restrictedShare);
        sizeShare = List.copyOf(sizeShare);
    }

    /**
     * The mean size of the job that a GPU demanded belongs to (E[size²] / E[size] over {@link #sizeShare}): how lumpy
     * the demand comes. 1 when nothing is known of sizes (every job one GPU).
     */
    double gpuWeightedJobSize() {
        double gpus = 0;
        double squares = 0;
        for (int i = 0; i < sizeShare.size(); i++) {
            int size = i + 1;
            gpus += sizeShare.get(i) * size;
            squares += sizeShare.get(i) * size * size;
        }
        return gpus == 0 ? 1 : squares / gpus;
    }

    /**
     * The same demand with its sizes weighed by GPUs: {@link #sizeShare} then says what share of the GPUs demanded
     * comes in jobs of 1, 2, … GPUs (a job of 8 counts eight times one of 1), rather than what share of the jobs.
     */
    GpuDemand sizesByGpus() {
        double gpus = 0;
        for (int i = 0; i < sizeShare.size(); i++) {
            gpus += sizeShare.get(i) * (i + 1);
        }
        if (gpus == 0) {
            return this;
        }
        List<Double> byGpus = new ArrayList<>(sizeShare.size());
        for (int i = 0; i < sizeShare.size(); i++) {
            byGpus.add(sizeShare.get(i) * (i + 1) / gpus);
        }
        return new GpuDemand(restrictedShare, byGpus, cpuMillisPerGpu, memoryMbPerGpu);
    }

    double restrictedShare(String model) {
        Double share = model == null ? null : restrictedShare.get(model);
        return share == null ? 0 : share;
    }

    /** The demand of these jobs, each weighed by its GPUs. */
    public static GpuDemand of(List<PendingJob> jobs) {
        Tracker tracker = new Tracker(Long.MAX_VALUE);
        jobs.forEach(tracker::record);
        return tracker.current();
    }

    /**
     * The demand of the jobs recorded lately: sums that decay as GPUs are recorded, so that the jobs of about the
     * last {@code window} GPUs count. Not thread-safe: one owner records and reads.
     */
    public static final class Tracker {
        private final double keep;
        private final Map<String, Double> restricted = new HashMap<>();
        private final double[] sizes = new double[MAX_SIZE];
        private double total;
        private double jobs;
        private double cpu;
        private double memory;

        /** @param window about how many GPUs of demand count (older demand fades by e per window) */
        public Tracker(long window) {
            if (window < 1) {
                throw new IllegalArgumentException("window must be at least 1");
            }
            this.keep = window == Long.MAX_VALUE ? 1 : 1 - 1.0 / window;
        }

        public void record(PendingJob job) {
            int gpus = job.gpuCount();
            if (gpus == 0) {
                return;
            }
            double fade = Math.pow(keep, gpus);
            total = total * fade + gpus;
            restricted.replaceAll((model, sum) -> sum * fade);
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] *= fade;
            }
            sizes[Math.min(gpus, MAX_SIZE) - 1] += 1;
            jobs = jobs * fade + 1;
            cpu = cpu * fade + job.cpuMillis();
            memory = memory * fade + job.memoryMb();
            List<String> models = job.gpuTypes();
            for (String model : models) {
                restricted.merge(model, (double) gpus / models.size(), Double::sum);
            }
        }

        public GpuDemand current() {
            if (total == 0) {
                return NONE;
            }
            Map<String, Double> shares = new TreeMap<>();
            restricted.forEach((model, sum) -> shares.put(model, Math.min(1, sum / total)));
            List<Double> sizeShare = new ArrayList<>(MAX_SIZE);
            for (double size : sizes) {
                sizeShare.add(size / jobs);
            }
            return new GpuDemand(shares, sizeShare, Math.round(cpu / total), Math.round(memory / total));
        }
    }
}
