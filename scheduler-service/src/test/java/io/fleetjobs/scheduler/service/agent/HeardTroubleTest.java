package io.fleetjobs.scheduler.service.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class HeardTroubleTest {
    private static final Instant T = Instant.parse("2026-12-03T10:00:00Z");
    private final HeardTrouble trouble = new HeardTrouble(() -> Duration.ofSeconds(8), Duration.ofSeconds(60));

    @Test
    void withoutTroubleTheWatermarkIsWhatWasHeard() {
        assertThat(trouble.holdBack(T, T.plusMillis(200))).isEqualTo(T);
    }

    @Test
    void inTroubleTheWatermarkStaysAtItsBeginningUntilCalm() {
        trouble.sign(T);
        trouble.sign(T.plusSeconds(5)); // the same trouble, going on
        assertThat(trouble.holdBack(T.plusSeconds(10), T.plusSeconds(10))).isEqualTo(T);
        assertThat(trouble.holdBack(T.plusSeconds(13), T.plusSeconds(13))).as("8 s after its last sign").isEqualTo(T);
        assertThat(trouble.holdBack(T.plusSeconds(14), T.plusSeconds(14))).as("calm again").isEqualTo(T.plusSeconds(14));

        trouble.sign(T.plusSeconds(20)); // new trouble, from its own beginning
        assertThat(trouble.holdBack(T.plusSeconds(21), T.plusSeconds(21))).isEqualTo(T.plusSeconds(20));
    }

    @Test
    void neverHeldBackMoreThanTheMostAllowedAndNeverAheadOfWhatWasHeard() {
        for (int s = 0; s <= 100; s += 5) {
            trouble.sign(T.plusSeconds(s));
        }
        assertThat(trouble.holdBack(T.plusSeconds(100), T.plusSeconds(100))).isEqualTo(T.plusSeconds(40));
        assertThat(trouble.holdBack(T.plusSeconds(30), T.plusSeconds(100))).as("a writer behind: its own watermark")
                .isEqualTo(T.plusSeconds(30));
    }
}
