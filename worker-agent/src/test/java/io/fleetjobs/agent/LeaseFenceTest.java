package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The fence's timer, one check at a time on a clock the test steps. */
class LeaseFenceTest {
    final AtomicLong now = new AtomicLong();
    final AtomicInteger terminated = new AtomicInteger();
    final AtomicInteger killed = new AtomicInteger();
    final LeaseFence fence = new LeaseFence(now::get, new LeaseFence.Attempts() {
        @Override
        public int terminateAll() {
            return terminated.incrementAndGet();
        }

        @Override
        public int killAll() {
            return killed.incrementAndGet();
        }
    });

    void at(long millis) {
        now.set(Duration.ofMillis(millis).toNanos());
    }

    @Test
    void sigtermAtTheDeadlineAndSigkillAtTheEndOfTheGraceWhateverTheCallsDo() {
        at(1000);
        fence.joined(now.get(), Duration.ofSeconds(6), Duration.ofSeconds(5));
        at(6999);
        assertThat(fence.check()).isEqualTo(Fence.State.LIVE);
        assertThat(fence.live()).isTrue();
        assertThat(terminated).hasValue(0);

        at(7000);
        assertThat(fence.check()).isEqualTo(Fence.State.TERMINATE);
        assertThat(fence.live()).as("no attempt is started once the lease ran out").isFalse();
        assertThat(terminated).hasValue(1);
        assertThat(killed).hasValue(0);

        at(12000);
        assertThat(fence.check()).isEqualTo(Fence.State.KILL);
        assertThat(killed).hasValue(1);
    }

    @Test
    void aHeartbeatAnsweredRenewsFromWhenItWasSent() {
        at(0);
        fence.joined(0, Duration.ofSeconds(6), Duration.ofSeconds(5));
        // sent at 2 s, answered at 5.5 s (held): the lease runs to 8 s, not to 11.5 s
        at(5500);
        fence.renewed(Duration.ofSeconds(2).toNanos(), Duration.ofSeconds(6));
        at(7999);
        assertThat(fence.check()).isEqualTo(Fence.State.LIVE);
        at(8000);
        assertThat(fence.check()).isEqualTo(Fence.State.TERMINATE);
        // answered late: renewed again, live again, and nothing more is killed
        fence.renewed(Duration.ofSeconds(7).toNanos(), Duration.ofSeconds(6));
        at(12999);
        assertThat(fence.check()).isEqualTo(Fence.State.LIVE);
        assertThat(killed).hasValue(0);
    }

    @Test
    void theTimerRunsOnItsOwn() {
        at(0);
        fence.joined(0, Duration.ofMillis(100), Duration.ofMillis(100));
        fence.start("m-1");
        try {
            at(150);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> terminated.get() > 0);
            at(250);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> killed.get() > 0);
        } finally {
            fence.close();
        }
    }
}
