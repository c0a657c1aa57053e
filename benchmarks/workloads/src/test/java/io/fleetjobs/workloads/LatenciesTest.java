package io.fleetjobs.workloads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatenciesTest {
    @Test
    void percentilesAndMaxAreInMilliseconds() {
        Latencies l = new Latencies();
        for (int ms = 1; ms <= 100; ms++) {
            l.recordNanos(ms * 1_000_000L);
        }
        assertThat(l.count()).isEqualTo(100);
        assertThat(l.percentileMillis(50)).isCloseTo(50, within(0.1));
        assertThat(l.percentileMillis(99)).isCloseTo(99, within(0.1));
        assertThat(l.maxMillis()).isCloseTo(100, within(0.1));
    }

    @Test
    void nothingRecordedIsNotANumberAndNegativeTimesCountAsZero() {
        Latencies l = new Latencies();
        assertThat(l.percentileMillis(99)).isNaN();
        l.recordMicros(-5);
        assertThat(l.maxMillis()).isZero();
    }
}
