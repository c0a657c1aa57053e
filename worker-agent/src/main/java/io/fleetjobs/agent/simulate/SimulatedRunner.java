package io.fleetjobs.agent.simulate;

import io.fleetjobs.agent.process.Attempt;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.AttemptRunner;
import io.fleetjobs.agent.process.Outcome;
import io.fleetjobs.agent.process.StartFailedException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs no process: an attempt ends {@code SIM_DURATION_MS} (job environment, default 0) after it starts, with
 * exit code {@code SIM_EXIT_CODE} (default 0). Terminating it ends it at once as a process that obeys SIGTERM
 * ends (exit 143, signal 15), so cancels and the agent's timeouts behave as on a real machine. One timer is
 * shared by every simulated machine.
 */
public final class SimulatedRunner implements AttemptRunner {
    public static final String DURATION_ENV = "SIM_DURATION_MS";
    public static final String EXIT_CODE_ENV = "SIM_EXIT_CODE";
    /** What a process group ended by SIGTERM reports, as the real runner's shell does. */
    static final int TERMINATED = 128 + 15;

    private final ScheduledExecutorService timer;
    private final InstantSource clock;

    public SimulatedRunner(ScheduledExecutorService timer, InstantSource clock) {
        this.timer = Objects.requireNonNull(timer, "timer");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Nothing outlives a simulated attempt. */
    @Override
    public List<AttemptKey> killLeftovers() {
        return List.of();
    }

    @Override
    public Attempt start(AttemptKey key, List<String> command, Map<String, String> env) throws StartFailedException {
        Map<String, String> vars = env == null ? Map.of() : env;
        long durationMs = number(vars, DURATION_ENV, 0, Long.MAX_VALUE);
        int exitCode = (int) number(vars, EXIT_CODE_ENV, 0, 255);
        SimulatedAttempt attempt = new SimulatedAttempt(clock.instant());
        attempt.timer = timer.schedule(() -> attempt.end(exitCode, null), durationMs, TimeUnit.MILLISECONDS);
        return attempt;
    }

    private static long number(Map<String, String> env, String name, long min, long max) throws StartFailedException {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            long n = Long.parseLong(value.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StartFailedException(name + " must be a whole number from " + min + " to " + max + ", not '" + value + "'");
    }

    private final class SimulatedAttempt implements Attempt {
        private final Instant startedAt;
        private final CompletableFuture<Outcome> exit = new CompletableFuture<>();
        private volatile ScheduledFuture<?> timer;

        SimulatedAttempt(Instant startedAt) {
            this.startedAt = startedAt;
        }

        void end(int exitCode, Integer signal) {
            exit.complete(new Outcome(exitCode, signal, clock.instant(), "", ""));
        }

        @Override
        public Instant startedAt() {
            return startedAt;
        }

        @Override
        public CompletableFuture<Outcome> exit() {
            return exit.copy();
        }

        @Override
        public void terminate() {
            ScheduledFuture<?> pending = timer;
            if (pending != null) {
                pending.cancel(false);
            }
            end(TERMINATED, 15);
        }

        @Override
        public String stdoutTail() {
            return "";
        }

        @Override
        public String stderrTail() {
            return "";
        }
    }
}
