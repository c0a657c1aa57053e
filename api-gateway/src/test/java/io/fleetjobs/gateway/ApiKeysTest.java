package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.store.Principal;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.testsupport.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;

/** A key's answer is reused for the TTL; keys never seen cost a lookup each, and an address gets only so many. */
class ApiKeysTest {
    private final SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final AtomicInteger lookups = new AtomicInteger();
    private final Principal alice = new Principal(UUID.randomUUID(), "alice", Principal.Role.USER);
    private final ApiKeys keys = new ApiKeys(key -> {
        lookups.incrementAndGet();
        return key.equals("good") ? Optional.of(alice) : Optional.empty();
    }, clock, Duration.ofSeconds(5), 20);

    @Test
    void anAnswerIsReusedForTheTtlFoundOrNot() {
        assertThat(keys.authenticate("good", "10.0.0.1")).isPresent();
        assertThat(keys.authenticate("bad", "10.0.0.1")).isEmpty();
        for (int i = 0; i < 100; i++) {
            keys.authenticate("good", "10.0.0.1");
            keys.authenticate("bad", "10.0.0.1");
        }
        assertThat(lookups).hasValue(2);
        clock.advance(Duration.ofSeconds(6));
        keys.authenticate("good", "10.0.0.1");
        assertThat(lookups).hasValue(3);
    }

    /**
     * Many requests with one working key, arriving while it is looked up (its answer just expired), wait for that one
     * lookup: none asks the database again, none spends a permit, none is refused as a guesser would be.
     */
    @Test
    void requestsArrivingWhileTheirKeyIsLookedUpWaitForThatLookup() throws Exception {
        CountDownLatch inLookup = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ApiKeys slow = new ApiKeys(key -> {
            lookups.incrementAndGet();
            inLookup.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return Optional.of(alice);
        }, clock, Duration.ofSeconds(5), 1); // one lookup a second for the address
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            var first = threads.submit(() -> slow.authenticate("good", "10.0.0.1"));
            inLookup.await();
            List<Future<Optional<CallerIdentity>>> others = new ArrayList<>();
            var callers = new AtomicReferenceArray<Thread>(49);
            for (int i = 0; i < 49; i++) {
                int n = i;
                others.add(threads.submit(() -> {
                    callers.set(n, Thread.currentThread());
                    return slow.authenticate("good", "10.0.0.1");
                }));
            }
            // every other request has arrived and either waits (for the lookup) or was answered already (refused)
            await().until(() -> IntStream.range(0, 49).allMatch(i -> others.get(i).isDone()
                    || callers.get(i) != null && callers.get(i).getState() == Thread.State.WAITING));
            release.countDown();
            assertThat(first.get()).isPresent();
            for (var other : others) {
                assertThat(other.get()).as("answered by the one lookup, not refused").isPresent();
            }
        }
        assertThat(lookups).hasValue(1);
    }

    /**
     * Requests with one working key arriving at the same instant on a cold cache (a gateway just started, 50 clients
     * behind one address): one of them looks the key up and spends the address's permit, the others wait for it. They
     * used to take a permit each before finding the lookup in flight, and past the address's burst were refused as a
     * guesser would be.
     */
    @Test
    void requestsArrivingTogetherOnAColdCacheSpendOnePermit() throws Exception {
        for (int round = 0; round < 50; round++) {
            ApiKeys cold = new ApiKeys(key -> {
                lookups.incrementAndGet();
                return Optional.of(alice);
            }, clock, Duration.ofSeconds(5), 1);
            CyclicBarrier start = new CyclicBarrier(16);
            List<Future<Optional<CallerIdentity>>> answers = new ArrayList<>();
            var threads = Executors.newFixedThreadPool(16);
            try {
                for (int i = 0; i < 16; i++) {
                    answers.add(threads.submit(() -> {
                        start.await();
                        return cold.authenticate("good", "10.0.0.1");
                    }));
                }
                for (var answer : answers) {
                    assertThat(answer.get()).as("round " + round + ": answered, not refused").isPresent();
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /** A lookup that fails (the database unreachable) is not kept: the next request asks again. */
    @Test
    void aFailedLookupIsNotReused() {
        AtomicInteger failures = new AtomicInteger(1);
        ApiKeys flaky = new ApiKeys(key -> {
            lookups.incrementAndGet();
            if (failures.getAndDecrement() > 0) {
                throw new DataAccessResourceFailureException("injected");
            }
            return Optional.of(alice);
        }, clock, Duration.ofSeconds(5), 20);
        assertThatThrownBy(() -> flaky.authenticate("good", "10.0.0.1"))
                .isInstanceOf(DataAccessResourceFailureException.class);
        assertThat(flaky.authenticate("good", "10.0.0.1")).isPresent();
        assertThat(lookups).hasValue(2);
    }

    @Test
    void anAddressSendingKeyAfterNewKeyIsRefusedBeforeTheDatabaseIsAsked() {
        int refused = 0;
        for (int i = 0; i < 200; i++) {
            try {
                keys.authenticate("guess-" + i, "203.0.113.9");
            } catch (ApiKeys.TooManyLookups e) {
                refused++;
                assertThat(e.wait).isPositive();
            }
        }
        assertThat(lookups.get()).as("lookups reaching the database").isLessThanOrEqualTo(40); // a burst, maybe a refill
        assertThat(refused).isGreaterThanOrEqualTo(160);
        // another address is not held to this one's count, and a key already answered costs no permit
        assertThat(keys.authenticate("good", "10.0.0.2")).isPresent();
        assertThatThrownBy(() -> keys.authenticate("guess-new", "203.0.113.9")).isInstanceOf(ApiKeys.TooManyLookups.class);
        assertThat(keys.authenticate("good", "203.0.113.9")).as("cached: answered without a permit").isPresent();
    }
}
