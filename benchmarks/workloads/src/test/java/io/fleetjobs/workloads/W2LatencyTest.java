package io.fleetjobs.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class W2LatencyTest {
    @Test
    void arrivalsAreEvenlySpacedAtTheRate() {
        assertThat(W2Latency.arrivalNanos(0, 25)).isZero();
        assertThat(W2Latency.arrivalNanos(1, 25)).isEqualTo(40_000_000L);
        assertThat(W2Latency.arrivalNanos(400, 400)).isEqualTo(1_000_000_000L);
        assertThat(W2Latency.arrivalNanos(3, 3)).isEqualTo(1_000_000_000L);
    }

    @Test
    void aRateHoldsOnlyWithAQuickP99NoErrorsEveryJobStartedAndAShortBacklog() {
        assertThat(W2Latency.verdict(0, 850, 100, 0, 100)).isTrue();
        assertThat(W2Latency.verdict(0, 1_000, 0, 0, 100)).as("p99 of one second").isFalse();
        assertThat(W2Latency.verdict(0, 200, 101, 0, 100)).as("more than a second of arrivals waiting").isFalse();
        assertThat(W2Latency.verdict(1, 200, 0, 0, 100)).as("an error").isFalse();
        assertThat(W2Latency.verdict(0, 200, 0, 1, 100)).as("a job never started").isFalse();
        assertThat(W2Latency.verdict(0, Double.NaN, 0, 0, 100)).as("nothing measured").isFalse();
    }

    @Test
    void theSimulatedFleetIsACsvOfTheSimulatorsColumns() {
        String csv = W2Latency.machines(2);
        assertThat(csv.lines()).containsExactly("id,region,cpu,memoryMb,gpuCount,gpuType,labels",
                "sim-1,local,16,65536,0,,", "sim-2,local,16,65536,0,,");
    }
}
