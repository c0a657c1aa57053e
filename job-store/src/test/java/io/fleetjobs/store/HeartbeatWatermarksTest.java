package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The time silence is judged at, from the replicas' watermarks, on a real PostgreSQL. */
class HeartbeatWatermarksTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private static final Duration LIVE = Duration.ofSeconds(15);
    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final HeartbeatWatermarks marks = new HeartbeatWatermarks(
            JdbcClient.create(TestDatabases.create().dataSource(2)), now::get);

    @Test
    void theSlowestLiveReplicaHoldsTheJudgementBackAndAGoneOneStopsHoldingIt() {
        assertThat(marks.judgeAt(T0, LIVE)).as("no replica ever wrote: now").isEqualTo(T0);
        marks.record("a", T0.minusSeconds(1));
        marks.record("b", T0.minusSeconds(8)); // alive, 8 s behind
        assertThat(marks.judgeAt(T0, LIVE)).isEqualTo(T0.minusSeconds(8));
        marks.record("b", T0.minusSeconds(20));
        assertThat(marks.judgeAt(T0, LIVE)).as("a watermark never goes back").isEqualTo(T0.minusSeconds(8));

        now.set(T0.plusSeconds(10));
        marks.record("a", T0.plusSeconds(10));
        assertThat(marks.judgeAt(now.get(), LIVE)).as("b wrote 10 s ago: still live").isEqualTo(T0.minusSeconds(8));
        now.set(T0.plusSeconds(16));
        marks.record("a", T0.plusSeconds(16));
        assertThat(marks.judgeAt(now.get(), LIVE)).as("b silent past the window: gone").isEqualTo(T0.plusSeconds(16));

        now.set(T0.plusSeconds(60));
        assertThat(marks.judgeAt(now.get(), LIVE)).as("none live: the last any wrote stands")
                .isEqualTo(T0.plusSeconds(16));
        assertThat(marks.forget(Duration.ofSeconds(30))).isEqualTo(2);
        assertThat(marks.judgeAt(now.get(), LIVE)).isEqualTo(now.get());
    }

    @Test
    void neverLaterThanNow() {
        marks.record("ahead", T0.plusSeconds(5)); // a replica whose clock read is ahead of the sweep's
        assertThat(marks.judgeAt(T0, LIVE)).isEqualTo(T0);
    }
}
