package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The lease's rule, row by row: times in milliseconds of a monotonic clock. */
class FenceTest {
    private static long ms(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    @ParameterizedTest(name = "renewed at {0}, ttl {1}, grace {2}: at {3} {4}")
    @CsvSource({
            // renewedAt, ttl, grace, now, state
            "0,     6000, 5000, 0,     LIVE",
            "0,     6000, 5000, 5999,  LIVE",
            "0,     6000, 5000, 6000,  TERMINATE", // the deadline itself: SIGTERM
            "0,     6000, 5000, 10999, TERMINATE",
            "0,     6000, 5000, 11000, KILL",      // deadline + grace: SIGKILL
            "0,     6000, 5000, 99000, KILL",
            "0,     6000, 0,    6000,  KILL",      // no grace: straight to SIGKILL
            "-9000, 6000, 5000, -4000, LIVE",      // nanoTime may be negative
            "-9000, 6000, 5000, 0,     TERMINATE",
    })
    void theStateAtATick(long renewedAt, long ttl, long grace, long now, Fence.State state) {
        Fence fence = new Fence(ms(renewedAt), Duration.ofMillis(ttl), Duration.ofMillis(grace));
        assertThat(fence.at(ms(now))).isEqualTo(state);
    }

    @Test
    void theLeaseCountsAcrossTheWrapOfTheClock() {
        Fence fence = new Fence(Long.MAX_VALUE - ms(1000), Duration.ofSeconds(6), Duration.ofSeconds(5));
        assertThat(fence.at(Long.MAX_VALUE)).isEqualTo(Fence.State.LIVE);
        assertThat(fence.at(Long.MIN_VALUE + ms(4998))).isEqualTo(Fence.State.LIVE);
        assertThat(fence.at(Long.MIN_VALUE + ms(5000))).isEqualTo(Fence.State.TERMINATE);
    }

    @ParameterizedTest(name = "renewed at {0}, answer to a heartbeat sent at {1}: renewed at {2}")
    @CsvSource({
            "1000, 3000, 3000", // a later send renews
            "3000, 1000, 3000", // an answer to an older heartbeat moves nothing back
            "3000, 3000, 3000",
    })
    void aRenewalCountsFromTheSendAndNeverMovesBack(long renewedAt, long sentAt, long expected) {
        Fence fence = new Fence(ms(renewedAt), Duration.ofSeconds(6), Duration.ofSeconds(5));
        Fence renewed = fence.renewed(ms(sentAt), Duration.ofSeconds(6));
        assertThat(renewed.renewedAt()).isEqualTo(ms(expected));
        assertThat(renewed.grace()).isEqualTo(Duration.ofSeconds(5));
    }

    @ParameterizedTest(name = "at {0}: next change in {1}")
    @CsvSource({"0, 6000", "2000, 4000", "6000, 5000", "10000, 1000", "11000, 0", "20000, 0"})
    void theTimerWakesAtTheNextChange(long now, long next) {
        Fence fence = new Fence(0, Duration.ofSeconds(6), Duration.ofSeconds(5));
        assertThat(fence.nanosToNextChange(ms(now))).isEqualTo(ms(next));
    }

    @ParameterizedTest(name = "start within {0} ms of the answer to a heartbeat sent at {1}, at {2}: {3}")
    @CsvSource({
            "30000, 0,    29999, true",
            "30000, 0,    30000, false",
            "0,     0,    0,     false", // the deadline had passed when the scheduler answered
            "500,   1000, 1400,  true",
            "500,   1000, 1500,  false",
            ",      0,    99999, true",  // an older scheduler says no deadline
    })
    void aLeaseIsStartedOnlyBeforeItsDeadline(Long startWithinMs, long sentAt, long now, boolean startable) {
        assertThat(Fence.startable(startWithinMs, ms(sentAt), ms(now))).isEqualTo(startable);
    }
}
