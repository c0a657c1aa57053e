package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The metric-name extraction MetricsExposedTest relies on. */
class PromQlTest {
    @Test
    void functionsLabelsKeywordsDurationsAndVariablesAreNotMetrics() {
        assertThat(PromQl.metricNames(
                "histogram_quantile(0.99, sum by (le, sweep) (rate(reconciler_sweep_seconds_bucket[$__rate_interval])))"))
                .containsExactly("reconciler_sweep_seconds_bucket");
        assertThat(PromQl.metricNames("""
                (sum(max by (queue) (fleet_queue_depth)) - (sum(fleet_queue_unschedulable) or vector(0))) > 0
                and on () (sum(rate(scheduler_placements_total{kind="a b", to=~"X|Y"}[10m])) or vector(0)) == 0"""))
                .containsExactly("fleet_queue_depth", "fleet_queue_unschedulable", "scheduler_placements_total");
        assertThat(PromQl.metricNames("sum(rate(x_total[5m])) by (instance) / 1e3 > bool 2"))
                .containsExactly("x_total");
        assertThat(PromQl.metricNames("up{job=~\"a|b\"} == 0")).containsExactly("up");
    }

    @Test
    void theExposedFamiliesAreTheSampleNames() {
        assertThat(PromQl.exposed("""
                # HELP a_total x
                # TYPE a_total counter
                a_total{kind="x"} 1.0
                b_seconds_bucket{le="0.1"} 3
                c 2
                """)).containsExactly("a_total", "b_seconds_bucket", "c");
    }
}
