package io.fleetjobs.jobservice.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WatermarkTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration GRACE = Duration.ofSeconds(2);

    @ParameterizedTest(name = "{3}")
    @CsvSource(textBlock = """
            # visible (after 10), settled, why
            '',          10, nothing new
            11 12 13,    13, contiguous: all of it
            11 13,       11, a hole at 12 (a transaction still open): stops before it
            12 13,       10, a hole right above: nothing yet
            11 12 15 16, 12, stops at the first hole
            """)
    void stopsAtAHoleItHasJustSeen(String visible, long settled, String why) {
        Watermark w = new Watermark(10, GRACE);
        assertThat(w.advance(positions(visible), T0)).as(why).isEqualTo(settled);
    }

    @Test
    void aHoleThatFillsWithinTheGraceIsDeliveredInOrder() {
        Watermark w = new Watermark(10, GRACE);
        assertThat(w.advance(List.of(11L, 13L), T0)).isEqualTo(11);
        assertThat(w.advance(List.of(12L, 13L), T0.plusMillis(500))).as("12 committed late").isEqualTo(13);
    }

    @Test
    void aHoleOpenForTheGraceIsSteppedOver() {
        Watermark w = new Watermark(10, GRACE);
        assertThat(w.advance(List.of(11L, 13L, 15L), T0)).isEqualTo(11);
        assertThat(w.advance(List.of(13L, 15L), T0.plus(GRACE).minusMillis(1))).isEqualTo(11);
        assertThat(w.advance(List.of(13L, 15L), T0.plus(GRACE)))
                .as("12 and 14 rolled back: both holes were seen at T0, both are stepped over").isEqualTo(15);
    }

    @Test
    void aHoleFirstSeenLaterWaitsItsOwnGrace() {
        Watermark w = new Watermark(10, GRACE);
        assertThat(w.advance(List.of(11L), T0)).isEqualTo(11);
        assertThat(w.advance(List.of(13L), T0.plusSeconds(5))).as("12 is new at T0+5 s").isEqualTo(11);
        assertThat(w.advance(List.of(13L), T0.plusSeconds(7))).isEqualTo(13);
    }

    private static List<Long> positions(String s) {
        return s.isBlank() ? List.of() : Arrays.stream(s.trim().split(" +")).map(Long::valueOf).toList();
    }
}
