package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.store.Principal;
import io.fleetjobs.testsupport.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

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
