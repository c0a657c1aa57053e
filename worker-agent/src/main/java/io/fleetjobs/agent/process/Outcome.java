package io.fleetjobs.agent.process;

import java.time.Instant;
import java.util.Objects;

/**
 * How an attempt's process ended.
 *
 * @param exitCode   the exit status of the group leader; {@code 128 + signal} when a signal killed it, as
 *                   shells report it
 * @param signal     the signal that ended it, or null when it exited by itself. Inferred from the exit
 *                   code (129 to 192 read as signals 1 to 64), so a program that calls {@code exit(137)}
 *                   reads as killed by signal 9, exactly as it would to a shell: Java does not expose the
 *                   raw wait status
 * @param finishedAt when the leader was seen to exit (the runner's clock)
 * @param stdoutTail the last bytes of standard output (UTF-8, at most the runner's tail size)
 * @param stderrTail the last bytes of standard error
 */
public record Outcome(int exitCode, Integer signal, Instant finishedAt, String stdoutTail, String stderrTail) {
    private static final int HIGHEST_SIGNAL = 64;

    public Outcome {
        Objects.requireNonNull(finishedAt, "finishedAt");
        Objects.requireNonNull(stdoutTail, "stdoutTail");
        Objects.requireNonNull(stderrTail, "stderrTail");
    }

    static Outcome of(int exitCode, Instant finishedAt, String stdoutTail, String stderrTail) {
        return new Outcome(exitCode, signalOf(exitCode), finishedAt, stdoutTail, stderrTail);
    }

    static Integer signalOf(int exitCode) {
        return exitCode > 128 && exitCode <= 128 + HIGHEST_SIGNAL ? exitCode - 128 : null;
    }
}
