package io.fleetjobs.scheduler.service.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One machine holds a few of a replica's heartbeat places at most, whatever it sends; others are not held back. */
class CallsInFlightTest {
    @Test
    void aMachineHoldsAFewPlacesAtMostAndGivesThemBack() {
        CallsInFlight inFlight = new CallsInFlight(CallsInFlight.HEARTBEATS);
        for (int i = 0; i < CallsInFlight.HEARTBEATS; i++) {
            assertThat(inFlight.tryEnter("m-1")).isTrue();
        }
        assertThat(inFlight.tryEnter("m-1")).as("one more of the same machine").isFalse();
        assertThat(inFlight.tryEnter("m-2")).as("another machine").isTrue();

        inFlight.exit("m-1");
        assertThat(inFlight.tryEnter("m-1")).isTrue();
        for (int i = 0; i < CallsInFlight.HEARTBEATS; i++) {
            inFlight.exit("m-1");
        }
        inFlight.exit("m-2");
        assertThat(inFlight.machines()).as("nothing kept for machines with nothing in progress").isZero();
    }

    @Test
    void aFloodFromOneMachineAtOnceTakesNoMoreThanItsPlaces() throws InterruptedException {
        CallsInFlight inFlight = new CallsInFlight(CallsInFlight.HEARTBEATS);
        AtomicInteger entered = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 1_000; i++) {
                threads.submit(() -> {
                    go.await();
                    if (inFlight.tryEnter("attacker")) {
                        entered.incrementAndGet();
                    }
                    return null;
                });
            }
            go.countDown();
        }
        assertThat(entered.get()).isEqualTo(CallsInFlight.HEARTBEATS);
    }
}
