package io.fleetjobs.reconciler.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RetentionTest {
    private final Retention retention = new Retention(Duration.ofDays(30), 500, 3, Duration.ofMinutes(1));

    @Test
    void whatFinishedBeforeTheKeepIsPastIt() {
        assertThat(retention.cutoff(Instant.parse("2030-01-31T00:00:00Z"))).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
    }

    @Test
    void aFullBatchAsksForAnotherUntilTheRunsBoundAShortOneEndsTheRun() {
        assertThat(retention.another(1, 500)).isTrue();
        assertThat(retention.another(2, 500)).isTrue();
        assertThat(retention.another(3, 500)).as("at most 3 batches a run").isFalse();
        assertThat(retention.another(1, 499)).as("the backlog is done").isFalse();
        assertThat(retention.another(1, 0)).isFalse();
    }

    @Test
    void nonsenseIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> new Retention(Duration.ZERO, 500, 3, Duration.ZERO))
                .hasMessageContaining("jobs.retention.finished-jobs");
        assertThatThrownBy(() -> new Retention(Duration.ofDays(1), 0, 3, Duration.ZERO))
                .hasMessageContaining("jobs.retention.batch-size");
        assertThatThrownBy(() -> new Retention(Duration.ofDays(1), 500, 0, Duration.ZERO))
                .hasMessageContaining("jobs.retention.max-batches");
    }
}
