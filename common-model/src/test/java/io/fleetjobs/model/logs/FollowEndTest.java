package io.fleetjobs.model.logs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.logs.FollowEnd.Decision;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FollowEndTest {
    private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration GRACE = Duration.ofSeconds(10);

    @ParameterizedTest(name = "ended {0}s, end mark {1}, sent {2}, now {3}s: {4}")
    @CsvSource(nullValues = "-", value = {
            "-,  -,   0,   100, GO_ON",     // running: followed however long, whatever was sent
            "-,  -,   500, 100, GO_ON",
            "0,  -,   40,  1,   GO_ON",     // ended, the rest of its output on its way
            "0,  100, 40,  1,   GO_ON",     // the end is marked, the reader is not there yet
            "0,  100, 40,  60,  GO_ON",     // ...nor later: the bytes are stored, the reader gets them
            "0,  100, 100, 1,   COMPLETE",  // every byte up to the end sent
            "0,  0,   0,   1,   COMPLETE",  // an attempt that printed nothing
            "0,  -,   40,  9,   GO_ON",     // no end mark yet, within the grace
            "0,  -,   40,  10,  GAVE_UP"})  // no end mark in the grace: the machine is gone or keeps nothing
    void whenAFollowEnds(Long endedAtSeconds, Long streamEnd, long position, long nowSeconds, Decision expected) {
        Instant ended = endedAtSeconds == null ? null : T.plusSeconds(endedAtSeconds);
        assertThat(FollowEnd.decide(ended, streamEnd, position, T.plusSeconds(nowSeconds), GRACE)).isEqualTo(expected);
    }
}
