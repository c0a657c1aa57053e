package io.fleetjobs.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One key holds its places at most, whatever it sends; other keys are not held back by it. */
class PlacesPerKeyTest {
    @Test
    void eachKeyHoldsAtMostItsPlacesAndGetsThemBack() {
        PlacesPerKey<UUID> streams = new PlacesPerKey<>(2);
        UUID alice = new UUID(0, 1);
        UUID bob = new UUID(0, 2);
        assertThat(streams.tryTake(alice)).isTrue();
        assertThat(streams.tryTake(alice)).isTrue();
        assertThat(streams.tryTake(alice)).as("a third of alice's").isFalse();
        assertThat(streams.tryTake(bob)).as("another key's own places").isTrue();
        streams.giveBack(alice);
        assertThat(streams.tryTake(alice)).isTrue();
        assertThat(streams.tryTake(alice)).as("a refusal took nothing, a give-back gave one back").isFalse();
        assertThatThrownBy(() -> new PlacesPerKey<UUID>(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aKeyWithNothingInProgressIsForgotten() {
        PlacesPerKey<String> inFlight = new PlacesPerKey<>(4);
        for (int i = 0; i < 4; i++) {
            assertThat(inFlight.tryTake("m-1")).isTrue();
        }
        assertThat(inFlight.tryTake("m-1")).as("one more of the same machine").isFalse();
        assertThat(inFlight.tryTake("m-2")).as("another machine").isTrue();
        inFlight.giveBack("m-1");
        assertThat(inFlight.tryTake("m-1")).isTrue();
        for (int i = 0; i < 4; i++) {
            inFlight.giveBack("m-1");
        }
        inFlight.giveBack("m-2");
        assertThat(inFlight.keys()).as("nothing kept for keys with nothing in progress").isZero();
    }

    @Test
    void aFloodFromOneKeyAtOnceTakesNoMoreThanItsPlaces() throws InterruptedException {
        PlacesPerKey<String> inFlight = new PlacesPerKey<>(4);
        AtomicInteger took = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 1_000; i++) {
                threads.submit(() -> {
                    go.await();
                    if (inFlight.tryTake("attacker")) {
                        took.incrementAndGet();
                    }
                    return null;
                });
            }
            go.countDown();
        }
        assertThat(took.get()).isEqualTo(4);
    }
}
