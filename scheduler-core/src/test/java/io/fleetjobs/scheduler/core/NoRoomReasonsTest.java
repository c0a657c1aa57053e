package io.fleetjobs.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class NoRoomReasonsTest {
    private static final Duration HOLD = Duration.ofSeconds(5);
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    private final UUID job = UUID.randomUUID();

    @Test
    void aJobsFirstReasonIsDueOnceItHasWaitedTheHoldSinceItWasFirstFoundWithoutRoom() {
        NoRoomReasons reasons = new NoRoomReasons(HOLD);
        assertThat(reasons.due(job, T0, T0)).as("the first look").isFalse();
        assertThat(reasons.due(job, T0, T0.plusSeconds(4))).as("a look within the hold").isFalse();
        assertThat(reasons.due(job, T0, T0.plusSeconds(5))).as("a look once the hold passed").isTrue();
        assertThat(reasons.due(job, T0, T0.plusSeconds(6))).as("and after").isTrue();
    }

    @Test
    void theHoldCountsFromTheFirstLookNotFromTheSubmit() {
        NoRoomReasons reasons = new NoRoomReasons(HOLD);
        Instant firstLook = T0.plusSeconds(60);
        assertThat(reasons.due(job, T0, firstLook)).isFalse();
        assertThat(reasons.due(job, T0, firstLook.plusSeconds(4))).isFalse();
    }

    @Test
    void aPlacedJobIsForgottenAndStartsAnewIfItWaitsAgain() {
        NoRoomReasons reasons = new NoRoomReasons(HOLD);
        reasons.due(job, T0, T0);
        reasons.placed(List.of(job));
        assertThat(reasons.remembered()).isZero();
        assertThat(reasons.due(job, T0, T0.plusSeconds(10))).as("requeued, a first look again").isFalse();
    }

    @Test
    void aJobOlderThanTheHorizonGetsItsReasonAtOnce() {
        NoRoomReasons reasons = new NoRoomReasons(HOLD);
        Instant now = T0.plus(NoRoomReasons.HORIZON);
        assertThat(reasons.due(job, T0, now)).isTrue();
        assertThat(reasons.remembered()).isZero();
    }

    @Test
    void aFullMemoryWritesAtOnceAndOldEntriesAreDropped() {
        NoRoomReasons reasons = new NoRoomReasons(HOLD, 2);
        assertThat(reasons.due(UUID.randomUUID(), T0, T0)).isFalse();
        assertThat(reasons.due(UUID.randomUUID(), T0, T0.plusSeconds(1))).isFalse();
        assertThat(reasons.due(job, T0, T0.plusSeconds(2))).as("the memory is full").isTrue();
        assertThat(reasons.remembered()).isEqualTo(2);

        Instant later = T0.plus(NoRoomReasons.HORIZON).plusSeconds(2);
        UUID young = UUID.randomUUID();
        assertThat(reasons.due(young, later, later)).isFalse();
        assertThat(reasons.remembered()).as("the two first found before the horizon are gone").isEqualTo(1);
    }

    @Test
    void aHoldOfZeroWritesAtOnceAndANegativeOneIsRefused() {
        assertThat(new NoRoomReasons(Duration.ZERO).due(job, T0, T0)).isTrue();
        assertThatThrownBy(() -> new NoRoomReasons(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
