package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AttemptsAtOnceTest {
    private static final long MIB = 1024 * 1024;

    @Test
    void halfTheHeapAtItsCostPerAttemptUnlessTheOperatorSaysAndNeverMoreThanTheSandboxHasUids() {
        assertThat(AttemptsAtOnce.of(null, 96 * MIB, null)).as("local mode's agent heap").isEqualTo(192);
        assertThat(AttemptsAtOnce.of(null, 1024 * MIB, null)).isEqualTo(2048);
        assertThat(AttemptsAtOnce.of(null, 1024 * MIB, 1000)).as("one uid an attempt").isEqualTo(1000);
        assertThat(AttemptsAtOnce.of(50, 96 * MIB, 1000)).as("the operator's word").isEqualTo(50);
        assertThat(AttemptsAtOnce.of(5000, 96 * MIB, 1000)).isEqualTo(1000);
        assertThat(AttemptsAtOnce.of(null, 100_000, null)).as("at least one").isEqualTo(1);
    }
}
