package io.fleetjobs.reconciler.metrics;

import io.fleetjobs.model.BoundedTagValues;
import io.fleetjobs.store.FleetStatistics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The fleet and queue gauges ({@link FleetGauges}), refreshed every {@code jobs.reconciler.metrics-interval}
 * (5 s), the reconciler's own counters registered at zero so that rates and alerts over them hold
 * from the start, and the sweep timer's histogram. (A filter rather than {@code application.yml}: the end-to-end
 * tests run every service in one JVM, where only one service's {@code application.yml} is read.)
 */
@Configuration(proxyBeanMethods = false)
class FleetMetricsConfig {
    /** Every kind {@code reconciler_actions_total} counts (the sweeps name them). */
    static final List<String> ACTION_KINDS = List.of("machine-recovered", "machine-suspect", "machine-held-mass-silence",
            "machine-lost", "attempt-machine-lost", "lease-expired", "machine-drained", "allocation-repaired");
    /** Every sweep's name, as {@code reconciler_sweep_*{sweep}} tags it. */
    static final List<String> SWEEPS = List.of("machine-liveness", "expired-leases", "auto-drain",
            "allocations", "retention");

    @Bean
    MeterBinder reconcilerCountersFromZero() {
        return meters -> {
            ACTION_KINDS.forEach(kind -> meters.counter("reconciler.actions", "kind", kind));
            SWEEPS.forEach(sweep -> meters.counter("reconciler.sweep.failures", "sweep", sweep));
        };
    }

    /** Histogram buckets for the sweep timer, so that dashboards take p99 over replicas with histogram_quantile. */
    @Bean
    MeterFilter sweepHistograms() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (id.getType() == Meter.Type.TIMER && id.getName().equals("reconciler.sweep")) {
                    return DistributionStatisticConfig.builder().percentilesHistogram(true).build().merge(config);
                }
                return config;
            }
        };
    }

    @Bean
    FleetGauges fleetGauges(FleetStatistics statistics, InstantSource clock, MeterRegistry meters,
            @Value("${jobs.metrics.max-queue-tags:50}") int maxQueueTags) {
        return new FleetGauges(statistics, clock, meters, new BoundedTagValues(maxQueueTags));
    }

    @Bean
    SmartLifecycle fleetGaugesRefresher(FleetGauges gauges,
            @Value("${jobs.reconciler.metrics-interval:5s}") Duration interval) {
        return new Refresher(gauges, interval);
    }

    /** Refreshes the gauges on a thread of its own; a failed refresh keeps the last values and is tried again. */
    private static final class Refresher implements SmartLifecycle {
        private static final Logger log = LoggerFactory.getLogger(Refresher.class);
        private final FleetGauges gauges;
        private final Duration interval;
        private volatile ScheduledExecutorService executor;

        Refresher(FleetGauges gauges, Duration interval) {
            this.gauges = gauges;
            this.interval = interval;
        }

        @Override
        public void start() {
            executor = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("fleet-gauges").daemon().factory());
            executor.execute(this::refresh);
        }

        /** Refreshes, then comes back after the interval, or later when the refresh was slow (a deep queue). */
        private void refresh() {
            long began = System.nanoTime();
            try {
                gauges.refresh();
            } catch (RuntimeException e) {
                log.warn("refreshing the fleet gauges failed; keeping the last values: {}", e.toString());
            }
            Duration pause = FleetStatistics.pause(interval, Duration.ofNanos(System.nanoTime() - began));
            ScheduledExecutorService e = executor;
            if (e != null) {
                try {
                    e.schedule(this::refresh, pause.toMillis(), TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException stopped) {
                    log.debug("the gauges' refresher stopped");
                }
            }
        }

        @Override
        public void stop() {
            ScheduledExecutorService e = executor;
            executor = null;
            if (e != null) {
                e.shutdownNow();
            }
        }

        @Override
        public boolean isRunning() {
            return executor != null;
        }
    }
}
