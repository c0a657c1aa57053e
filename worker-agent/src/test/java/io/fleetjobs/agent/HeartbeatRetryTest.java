package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** An unheard heartbeat is tried again soon, backing off with jitter up to the interval the control plane said. */
class HeartbeatRetryTest {
    @ParameterizedTest(name = "failure {0} at interval {1} ms: within [{2}, {3}] ms")
    @CsvSource({
            // failures, interval, lowest, highest
            "1,  20000, 500,   999",
            "2,  20000, 1000,  1999",
            "3,  20000, 2000,  3999",
            "5,  20000, 8000,  15999",
            "6,  20000, 10000, 19999", // capped at the interval
            "40, 20000, 10000, 19999",
            "1,  2000,  500,   999",
            "3,  2000,  1000,  1999",
    })
    void backsOffWithJitterUpToTheInterval(int failures, long interval, long lowest, long highest) {
        Duration shortest = HeartbeatRetry.after(failures, Duration.ofMillis(interval), 0.0);
        Duration longest = HeartbeatRetry.after(failures, Duration.ofMillis(interval), 0.999999);
        assertThat(shortest).isEqualTo(Duration.ofMillis(lowest));
        assertThat(longest).isEqualTo(Duration.ofMillis(highest));
        assertThat(longest).isLessThan(Duration.ofMillis(interval));
    }

    @ParameterizedTest
    @CsvSource({"0, 0.5", "1, 1.0", "1, -0.1"})
    void refusesWhatIsNotAFailureOrAUnit(int failures, double unit) {
        assertThatThrownBy(() -> HeartbeatRetry.after(failures, Duration.ofSeconds(20), unit))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
