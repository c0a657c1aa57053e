package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryRuleTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final RetryPolicy POLICY = new RetryPolicy(3, List.of(75), 5, 60);

    @ParameterizedTest
    @CsvSource({
            // reason, exit, userFailures, infraFailures, retry?, spendUser, spendInfra
            "EXIT_CODE, 75, 0, 0, true, 1, 0",
            "EXIT_CODE, 75, 1, 0, true, 1, 0",
            "EXIT_CODE, 75, 2, 0, false, 0, 0",   // third attempt of three spent
            "EXIT_CODE, 1, 0, 0, false, 0, 0",    // not a retryable code
            "TIMEOUT, , 0, 0, false, 0, 0",
            "MACHINE_LOST, , 2, 0, true, 0, 1",   // the user's budget is untouched by the platform's faults
            "LEASE_EXPIRED, , 0, 3, true, 0, 1",
            "AGENT_RESTARTED, , 0, 4, false, 0, 0",
            "START_FAILED, , 0, 0, true, 0, 1",
            "OOM_KILLED, 137, 0, 0, false, 0, 0",          // the job's fault, and 137 is not listed
            "COMMAND_NOT_STARTABLE, 127, 0, 0, false, 0, 0",
            "DISK_LIMIT_EXCEEDED, 137, 0, 0, false, 0, 0",
            "PREEMPTED, 143, 0, 0, true, 0, 0",           // made room for a higher priority: spends neither budget
            "PREEMPTED, 143, 2, 4, true, 0, 0",           // however often it happens: the job never fails for it
            "PREEMPTED, 143, 0, 40, true, 0, 0"})
    void eachFailureClassHasItsRule(FailureReason reason, Integer exit, int user, int infra, boolean retry, int spendUser,
            int spendInfra) {
        var decision = RetryRule.decide(POLICY, reason, exit, user, infra, NOW, new Random(1));
        assertThat(decision instanceof RetryRule.Decision.Retry).isEqualTo(retry);
        if (decision instanceof RetryRule.Decision.Retry r) {
            assertThat(r.spendUser()).isEqualTo(spendUser);
            assertThat(r.spendInfra()).isEqualTo(spendInfra);
            assertThat(r.ahead()).as("work the platform lost goes back ahead of its priority")
                    .isEqualTo(spendInfra == 1 || reason == FailureReason.PREEMPTED);
            assertThat(r.notBefore()).isAfterOrEqualTo(NOW);
        } else {
            assertThat(((RetryRule.Decision.Fail) decision).reason()).isNotBlank();
        }
    }

    @Test
    void anOomKillIsRetriedOnTheUsersBudgetOnlyWhenTheJobLists137() {
        var listing137 = new RetryPolicy(3, List.of(137), 5, 60);
        var decision = RetryRule.decide(listing137, FailureReason.OOM_KILLED, 137, 0, 0, NOW, new Random(1));
        assertThat(decision).isInstanceOfSatisfying(RetryRule.Decision.Retry.class, r -> {
            assertThat(r.spendUser()).isEqualTo(1);
            assertThat(r.spendInfra()).isZero();
        });
        var not = RetryRule.decide(POLICY, FailureReason.OOM_KILLED, 137, 0, 0, NOW, new Random(1));
        assertThat(((RetryRule.Decision.Fail) not).reason()).startsWith("OOM_KILLED (exit code 137)");
    }

    @Test
    void backoffIsFullJitterUnderAnExponentialCappedCeiling() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int failures = 1; failures <= 12; failures++) {
            long ceiling = Math.min(60_000, 5_000L << (failures - 1));
            long max = 0;
            for (int i = 0; i < 2_000; i++) {
                long d = RetryRule.backoff(Duration.ofSeconds(5), Duration.ofSeconds(60), failures, random).toMillis();
                assertThat(d).as("seed %d", seed).isBetween(0L, ceiling);
                max = Math.max(max, d);
            }
            assertThat(max).as("seed %d: jitter reaches near the ceiling", seed).isGreaterThan(ceiling * 9 / 10);
        }
    }

    @Test
    void thePlatformsFirstFailureOfAJobIsRetriedAtOnceItsSecondBacksOff() {
        Random random = new Random(3);
        var first = (RetryRule.Decision.Retry) RetryRule.decide(POLICY, FailureReason.MACHINE_LOST, null, 0, 0, NOW, random);
        assertThat(first.notBefore()).isEqualTo(NOW);
        for (int i = 0; i < 200; i++) {
            var second = (RetryRule.Decision.Retry) RetryRule.decide(POLICY, FailureReason.START_FAILED, null, 0, 1, NOW, random);
            assertThat(second.notBefore()).isBetween(NOW, NOW.plusSeconds(1));
        }
    }

    @Test
    void aBackoffOfZeroRetriesAtOnceWhateverTheCap() {
        Random random = new Random(7);
        for (int failures = 1; failures <= 12; failures++) {
            assertThat(RetryRule.backoff(Duration.ZERO, Duration.ofSeconds(60), failures, random)).isEqualTo(Duration.ZERO);
        }
    }
}
