package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A wake-up right after a cycle waits out the rest of the gathering time, one after it none; and the backoffs of jobs that fit nowhere. */
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
    void aJobFoundToFitNowhereOnceMoreWaitsAQuarterOfItsAgeBetweenTheSecondBackoffAndTheLongest() {
        SchedulerProperties p = SchedulerProperties.defaults();
        Instant now = Instant.parse("2026-12-04T12:00:00Z");
        assertThat(p.retryNeverFitsMax()).isEqualTo(Duration.ofMinutes(15));
        assertThat(p.neverFitsBackoff().until(now, now.minus(Duration.ofHours(5)), false)).as("the first time: whatever its age")
                .isEqualTo(now.plus(p.retryNeverFits()));
        assertThat(p.neverFitsBackoff().until(now, now.minus(Duration.ofMinutes(3)), true)).isEqualTo(now.plus(Duration.ofMinutes(2)));
        assertThat(p.neverFitsBackoff().until(now, now.minus(Duration.ofMinutes(40)), true)).isEqualTo(now.plus(Duration.ofMinutes(10)));
        assertThat(p.neverFitsBackoff().until(now, now.minus(Duration.ofHours(5)), true)).isEqualTo(now.plus(Duration.ofMinutes(15)));
        assertThat(p.neverFitsBackoff().until(now, now.plusSeconds(5), true)).as("a clock behind the row's")
                .isEqualTo(now.plus(Duration.ofMinutes(2)));
        assertThatThrownBy(() -> new SchedulerProperties(null, null, null, null, null, null, null, null, null,
                Duration.ofMinutes(20), null, null, Duration.ofMinutes(10))).hasMessageContaining("retry-never-fits-max");
        assertThat(new SchedulerProperties(null, null, null, null, null, null, null, null, null, Duration.ofMinutes(20),
                null, null, null).retryNeverFitsMax()).as("a longer second backoff, the longest unset")
                .isEqualTo(Duration.ofMinutes(20));
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
