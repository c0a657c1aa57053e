package io.fleetjobs.agent.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.agent.process.Attempt;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.Outcome;
import io.fleetjobs.agent.process.StartFailedException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SimulatedRunnerTest {
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    private final SimulatedRunner runner = new SimulatedRunner(timer, InstantSource.fixed(NOW));

    SimulatedRunnerTest() {
        timer.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    private static AttemptKey key() {
        return new AttemptKey(UUID.randomUUID(), 1);
    }

    private static Map<String, String> env(String duration, String exitCode) {
        Map<String, String> env = new HashMap<>();
        env.put("OTHER", "x");
        env.put(SimulatedRunner.DURATION_ENV, duration);
        env.put(SimulatedRunner.EXIT_CODE_ENV, exitCode);
        return env;
    }

    private static Outcome outcome(Attempt attempt) throws Exception {
        return attempt.exit().get(10, TimeUnit.SECONDS);
    }

    @Test
    void withoutSettingsAnAttemptSucceedsAtOnce() throws Exception {
        Attempt attempt = runner.start(key(), List.of("anything"), Map.of());

        assertThat(attempt.startedAt()).isEqualTo(NOW);
        assertThat(outcome(attempt)).isEqualTo(new Outcome(0, null, NOW, "", ""));
        assertThat(runner.start(key(), List.of("x"), null).exit().get(10, TimeUnit.SECONDS).exitCode()).isZero();
    }

    @Test
    void endsWithTheExitCodeItIsGiven() throws Exception {
        Outcome outcome = outcome(runner.start(key(), List.of("x"), env("0", "3")));

        assertThat(outcome.exitCode()).isEqualTo(3);
        assertThat(outcome.signal()).isNull();
    }

    @Test
    void endsAfterTheDurationItIsGiven() throws Exception {
        Attempt attempt = runner.start(key(), List.of("x"), env("60000", "7"));

        assertThat(timer.getQueue()).singleElement().satisfies(task -> assertThat(((ScheduledFuture<?>) task)
                .getDelay(TimeUnit.MILLISECONDS)).isBetween(1L, 60_000L).isGreaterThan(30_000L));
        assertThat(attempt.exit()).isNotDone();
    }

    @Test
    void terminatingEndsItAtOnceAsKilledByTerm() throws Exception {
        Attempt attempt = runner.start(key(), List.of("x"), env("3600000", "0"));

        attempt.terminate();
        attempt.terminate();

        assertThat(outcome(attempt)).isEqualTo(new Outcome(143, 15, NOW, "", ""));
        assertThat(timer.getQueue()).isEmpty();
    }

    @Test
    void terminatingAnEndedAttemptChangesNothing() throws Exception {
        Attempt attempt = runner.start(key(), List.of("x"), env("0", "4"));
        assertThat(outcome(attempt).exitCode()).isEqualTo(4);

        attempt.terminate();

        assertThat(outcome(attempt).exitCode()).isEqualTo(4);
    }

    @Test
    void badSettingsFailTheStartNamingTheVariable() {
        assertThatThrownBy(() -> runner.start(key(), List.of("x"), env("soon", "0")))
                .isInstanceOf(StartFailedException.class).hasMessageContaining("SIM_DURATION_MS").hasMessageContaining("soon");
        assertThatThrownBy(() -> runner.start(key(), List.of("x"), env("-1", "0")))
                .isInstanceOf(StartFailedException.class).hasMessageContaining("SIM_DURATION_MS");
        assertThatThrownBy(() -> runner.start(key(), List.of("x"), env("0", "256")))
                .isInstanceOf(StartFailedException.class).hasMessageContaining("SIM_EXIT_CODE");
        assertThat(timer.getQueue()).isEmpty();
    }

    @Test
    void nothingIsLeftOver() {
        assertThat(runner.killLeftovers()).isEmpty();
    }
}
