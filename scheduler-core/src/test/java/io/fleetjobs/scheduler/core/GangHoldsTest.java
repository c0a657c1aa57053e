package io.fleetjobs.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class GangHoldsTest {
    private static final Instant HOUR = Instant.parse("2026-12-05T12:00:00Z");
    private final GangHolds holds = GangHolds.DEFAULT;

    /** The start of a hold: a multiple of the 11-minute period from the epoch. */
    private static Instant periodStart() {
        long period = Duration.ofMinutes(11).toMillis();
        return Instant.ofEpochMilli(HOUR.toEpochMilli() - Math.floorMod(HOUR.toEpochMilli(), period));
    }

    @Test
    void aGangHoldsNothingBeforeItsPatienceRunsOut() {
        Instant start = periodStart();
        assertThat(holds.holds(start.minus(Duration.ofSeconds(119)), start)).isFalse();
        assertThat(holds.holds(start.minus(Duration.ofMinutes(2)), start)).isTrue();
    }

    @Test
    void dueGangsHoldTenMinutesAndRestOneAllAtOnce() {
        Instant start = periodStart();
        Instant longAgo = start.minus(Duration.ofHours(5));
        Instant lately = start.minus(Duration.ofMinutes(3));
        for (Instant submitted : new Instant[] {longAgo, lately}) {
            assertThat(holds.holds(submitted, start)).isTrue();
            assertThat(holds.holds(submitted, start.plus(Duration.ofMinutes(10)).minusMillis(1))).isTrue();
            assertThat(holds.holds(submitted, start.plus(Duration.ofMinutes(10)))).as("the rest").isFalse();
            assertThat(holds.holds(submitted, start.plus(Duration.ofMinutes(11)).minusMillis(1))).isFalse();
            assertThat(holds.holds(submitted, start.plus(Duration.ofMinutes(11)))).as("the next hold").isTrue();
        }
    }

    @Test
    void inEveryElevenMinutesNoGangHoldsForAMinute() {
        // whatever the gangs' ages, a job behind them waits for held room at most a hold: step the clock by seconds
        Instant from = HOUR.plusSeconds(17);
        Instant[] submitted = {from.minus(Duration.ofDays(1)), from.minus(Duration.ofMinutes(7)), from.plusSeconds(200)};
        int longestHeld = 0;
        int heldInARow = 0;
        for (int s = 0; s < 3 * 3600; s++) {
            Instant now = from.plusSeconds(s);
            boolean anyHolds = false;
            for (Instant t : submitted) {
                anyHolds |= holds.holds(t, now);
            }
            heldInARow = anyHolds ? heldInARow + 1 : 0;
            longestHeld = Math.max(longestHeld, heldInARow);
        }
        assertThat(longestHeld).isEqualTo(600);
    }

    @Test
    void aRestOfZeroHoldsUntilTheGangFits() {
        GangHolds never = new GangHolds(Duration.ofMinutes(2), Duration.ofMinutes(10), Duration.ZERO);
        Instant start = periodStart();
        assertThat(never.holds(start.minus(Duration.ofHours(1)), start.plus(Duration.ofMinutes(10)))).isTrue();
    }

    @Test
    void refusesAHoldOfNothing() {
        assertThatThrownBy(() -> new GangHolds(Duration.ofMinutes(2), Duration.ZERO, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hold must be positive");
    }
}
