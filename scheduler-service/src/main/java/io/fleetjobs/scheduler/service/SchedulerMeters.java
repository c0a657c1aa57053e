package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.UnplacedKind;
import io.fleetjobs.scheduler.core.Unplaced;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.util.Set;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * How the scheduler's meters are exposed: the cycle, claim and commit timers with histogram buckets
 * ({@code scheduler_cycle_seconds_bucket}, ...), so that dashboards take p50/p99 over every replica with
 * {@code histogram_quantile}; and the unschedulable counter at zero for each kind, so that its rate is
 * defined before the first unplaceable job.
 */
@Configuration(proxyBeanMethods = false)
class SchedulerMeters {
    static final Set<String> HISTOGRAMS = Set.of("scheduler.cycle", "scheduler.claim", "scheduler.snapshot",
            "scheduler.plan", "scheduler.commit");

    @Bean
    MeterFilter schedulerHistograms() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (id.getType() == Meter.Type.TIMER && HISTOGRAMS.contains(id.getName())) {
                    return DistributionStatisticConfig.builder().percentilesHistogram(true).build().merge(config);
                }
                return config;
            }
        };
    }

    @Bean
    MeterBinder unschedulableFromZero() {
        return meters -> {
            for (UnplacedKind kind : UnplacedKind.values()) {
                CycleMeters.unschedulable(meters, kind);
            }
        };
    }
}
