package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HeartbeatFilterTest {
    private final HeartbeatFilter filter = new HeartbeatFilter(Duration.ofSeconds(30));

    @ParameterizedTest(name = "heartbeat {0} ms ago: {1}")
    @CsvSource(nullValues = "never", value = {
            "0,     true",
            "29999, true",
            "30000, true",    // exactly the window is still fresh
            "30001, false",
            "never, false"})  // registered but never heartbeated
    void acceptsHeartbeatsWithinTheWindow(Long ageMillis, boolean accepts) {
        Duration age = ageMillis == null ? null : Duration.ofMillis(ageMillis);
        assertThat(filter.accepts(aJob().build(), aMachine("m1").heartbeatAge(age).state())).isEqualTo(accepts);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "30000; 1; 1 has no heartbeat in the last 30s",
            "30000; 3; 3 have no heartbeat in the last 30s",
            "1500;  2; 2 have no heartbeat in the last 1500ms",
            "120000; 2; 2 have no heartbeat in the last 2m",
            "90000; 2; 2 have no heartbeat in the last 90s"})
    void explainsInWords(long windowMillis, int machines, String expected) {
        HeartbeatFilter window = new HeartbeatFilter(Duration.ofMillis(windowMillis));
        assertThat(window.explain(aJob().build(), machines)).isEqualTo(expected);
    }
}
