package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Gauges read every few seconds, and never more than a twentieth of the time when their reads grow slow. */
class StatisticsPaceTest {
    @Test
    void aQuickReadWaitsTheIntervalASlowOneTwentyTimesItsLength() {
        Duration interval = Duration.ofSeconds(5);
        assertThat(FleetStatistics.pause(interval, Duration.ofMillis(40))).isEqualTo(interval);
        assertThat(FleetStatistics.pause(interval, Duration.ofMillis(250))).isEqualTo(interval);
        assertThat(FleetStatistics.pause(interval, Duration.ofMillis(478))).isEqualTo(Duration.ofMillis(9_560));
        assertThat(FleetStatistics.pause(interval, Duration.ofSeconds(3))).isEqualTo(Duration.ofMinutes(1));
    }
}
