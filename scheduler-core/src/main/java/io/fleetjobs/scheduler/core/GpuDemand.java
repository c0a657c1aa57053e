package io.fleetjobs.scheduler.core;

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
 */
public record GpuDemand(Map<String, Double> restrictedShare) {
    /** Nothing known: every model is as good as another (the engine then bin-packs as before). */
    public static final GpuDemand NONE = new GpuDemand(Map.of());

    public GpuDemand {
        restrictedShare = Map.copyOf(restrictedShare);
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
        private double total;

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
            return new GpuDemand(shares);
        }
    }
}
