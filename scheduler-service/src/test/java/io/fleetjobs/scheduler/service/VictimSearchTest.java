package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class VictimSearchTest {
    private static final Instant T = Instant.parse("2030-01-01T00:00:00Z");
    private final VictimSearch search = new VictimSearch(Duration.ofSeconds(5));

    @Test
    void aReadThatFoundNoVictimIsNotRepeatedForThatPriorityOrLowerUntilTheQuietPassed() {
        assertThat(search.worthReading(10, T)).isTrue();
        search.found(10, false, T);

        assertThat(search.worthReading(10, T.plusSeconds(1))).as("same priority, within the quiet").isFalse();
        assertThat(search.worthReading(3, T.plusSeconds(4))).as("lower priority, within the quiet").isFalse();
        assertThat(search.worthReading(11, T.plusSeconds(1))).as("a higher priority may find victims the read could not")
                .isTrue();
        assertThat(search.worthReading(10, T.plusSeconds(5))).as("the quiet has passed").isTrue();
    }

    @Test
    void aReadThatFoundVictimsLeavesTheNextToReadAgain() {
        search.found(10, true, T);
        assertThat(search.worthReading(10, T.plusMillis(1))).isTrue();
        assertThat(search.worthReading(0, T.plusMillis(1))).isTrue();
    }

    @Test
    void victimsFoundBelowAPriorityThoughtEmptyEndTheQuiet() {
        search.found(10, false, T);
        search.found(12, true, T.plusSeconds(1)); // read by a higher priority: attempts between 10 and 12, or new ones
        assertThat(search.worthReading(10, T.plusSeconds(2))).isTrue();
    }
}
