package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A wake-up right after a cycle waits out the rest of the gathering time; one after it, none. */
class WakeUpGatheringTest {
    private static final Duration GATHER = Duration.ofMillis(50);

    @Test
    void aWakeUpSoonAfterACycleWaitsForTheRestOfTheGatheringTime() {
        assertThat(SchedulerLoop.gatherFor(GATHER, Duration.ZERO)).isEqualTo(GATHER);
        assertThat(SchedulerLoop.gatherFor(GATHER, Duration.ofMillis(20))).isEqualTo(Duration.ofMillis(30));
        assertThat(SchedulerLoop.gatherFor(GATHER, Duration.ofMillis(50))).isEqualTo(Duration.ZERO);
        assertThat(SchedulerLoop.gatherFor(GATHER, Duration.ofSeconds(3))).as("a quiet scheduler answers at once")
                .isEqualTo(Duration.ZERO);
        assertThat(SchedulerLoop.gatherFor(Duration.ZERO, Duration.ZERO)).as("gathering off").isEqualTo(Duration.ZERO);
    }

    @Test
    void theSecondNeverFitsBackoffIsNeverShorterThanTheFirst() {
        assertThat(SchedulerProperties.defaults().retryStillNeverFits()).isEqualTo(Duration.ofMinutes(2));
        assertThat(new SchedulerProperties(null, null, null, null, null, Duration.ofMinutes(10), null, null, null, null, null)
                .retryStillNeverFits()).as("a longer first backoff, the second unset").isEqualTo(Duration.ofMinutes(10));
        assertThatThrownBy(() -> new SchedulerProperties(null, null, null, null, null, Duration.ofMinutes(10), null, null,
                null, Duration.ofMinutes(5), null)).hasMessageContaining("retry-still-never-fits");
    }

    @Test
    void theGatheringTimeIsBounded() {
        assertThat(SchedulerProperties.defaults().gatherWakeUps()).isEqualTo(GATHER);
        assertThatThrownBy(() -> new SchedulerProperties(null, null, null, null, null, null, null, null,
                Duration.ofSeconds(2), null, null)).hasMessageContaining("gather-wake-ups");
        assertThatThrownBy(() -> new SchedulerProperties(null, null, null, null, null, null, null, null,
                Duration.ofMillis(-1), null, null)).hasMessageContaining("gather-wake-ups");
    }
}
