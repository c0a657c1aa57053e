package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every heartbeat gives up, connect and read together, before the lease it would renew ends. */
class HeartbeatTimingTest {
    @ParameterizedTest(name = "interval {0} ms, lease {1} ms, connect {2} ms: hold {3}, read {4}")
    @CsvSource({
            // interval, ttl, connect, hold, read
            "2000, 6000,  1000, 2000, 4000", // the defaults: 1 s + 4 s < 6 s
            "2000, 10000, 1000, 2000, 4000",
            "1000, 3000,  1000, 875,  1750", // a short lease: the read shrinks, the hold with it
            "200,  30000, 1000, 200,  2200",
            "5000, 6000,  1000, 2750, 4750",
    })
    void theHoldAndTheReadTimeoutFitTheLease(long interval, long ttl, long connect, long hold, long read) {
        HeartbeatTiming timing = HeartbeatTiming.of(Duration.ofMillis(interval), Duration.ofMillis(ttl),
                Duration.ofMillis(connect));
        assertThat(timing.hold()).isEqualTo(Duration.ofMillis(hold));
        assertThat(timing.readTimeout()).isEqualTo(Duration.ofMillis(read));
        assertThat(Duration.ofMillis(connect).plus(timing.readTimeout())).isLessThan(Duration.ofMillis(ttl));
        assertThat(timing.hold()).isLessThan(timing.readTimeout());
    }

    @ParameterizedTest
    @CsvSource({"1000, 1000", "1000, 1250", "500, 2000"})
    void aLeaseShorterThanTheConnectTimeoutIsRefused(long ttl, long connect) {
        assertThatThrownBy(() -> HeartbeatTiming.of(Duration.ofSeconds(2), Duration.ofMillis(ttl), Duration.ofMillis(connect)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("jobs.agent.lease-ttl");
    }
}
