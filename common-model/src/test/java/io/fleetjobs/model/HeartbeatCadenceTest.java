package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class HeartbeatCadenceTest {
    private static final HeartbeatCadence.Settings DEFAULTS =
            new HeartbeatCadence.Settings(Duration.ofSeconds(2), Duration.ofSeconds(6), 500);

    @ParameterizedTest(name = "{0} machines: every {1} ms, lease {2} ms")
    @CsvSource({
            "0, 2000, 6000", "1, 2000, 6000", "1000, 2000, 6000", "1001, 3000, 9000", "1500, 3000, 9000",
            "5000, 10000, 30000", "10000, 20000, 60000", "10001, 21000, 63000"})
    void theIntervalKeepsTheFleetUnderTheRateAndTheLeaseKeepsItsRatio(long machines, long intervalMs, long leaseMs) {
        HeartbeatCadence c = HeartbeatCadence.forFleet(machines, DEFAULTS);
        assertThat(c.interval()).isEqualTo(Duration.ofMillis(intervalMs));
        assertThat(c.leaseTtl()).isEqualTo(Duration.ofMillis(leaseMs));
        assertThat(machines / (c.interval().toMillis() / 1000.0)).as("heartbeats a second").isLessThanOrEqualTo(500);
    }

    @Test
    void theTtlsGrowByWhatTheLeaseGrewBySoTheFenceKeepsItsMargin() {
        FencingBudget base = new FencingBudget(Duration.ofSeconds(6), Duration.ofSeconds(5), Duration.ofSeconds(2),
                Duration.ofSeconds(1), Duration.ofSeconds(15));
        for (long machines : new long[] {10, 1_001, 5_000, 10_000, 50_000}) {
            HeartbeatCadence c = HeartbeatCadence.forFleet(machines, DEFAULTS);
            Duration extra = c.extraOver(base.leaseTtl());
            FencingBudget grown = new FencingBudget(c.leaseTtl(), base.killGrace(), base.longestHold(),
                    base.clockSkewMargin(), base.lostAfter().plus(extra));
            assertThat(grown.holds()).isTrue();
            assertThat(grown.margin()).isEqualTo(base.margin());
        }
        assertThat(DEFAULTS.base().extraOver(Duration.ofSeconds(6))).isZero();
        assertThat(DEFAULTS.base().extraOver(Duration.ofSeconds(9))).as("never negative").isZero();
    }

    @Test
    void aMachineTakesNewWorkForAsLongPastItsHeartbeatAsItsIntervalGrew() {
        Duration base = Duration.ofSeconds(10);
        assertThat(HeartbeatCadence.forFleet(1_000, DEFAULTS).freshness(base, Duration.ofSeconds(2))).isEqualTo(base);
        assertThat(HeartbeatCadence.forFleet(10_000, DEFAULTS).freshness(base, Duration.ofSeconds(2)))
                .as("every 20 s: 18 s more").isEqualTo(Duration.ofSeconds(28));
        assertThat(HeartbeatCadence.forFleet(10, DEFAULTS).freshness(base, Duration.ofSeconds(5)))
                .as("never shorter than the base").isEqualTo(base);
    }

    @Test
    void settingsThatCannotWorkAreRefused() {
        assertThatThrownBy(() -> new HeartbeatCadence.Settings(Duration.ofSeconds(6), Duration.ofSeconds(6), 10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HeartbeatCadence.Settings(Duration.ofSeconds(2), Duration.ofSeconds(6), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
