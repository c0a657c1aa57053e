package io.fleetjobs.agent.process;

import io.fleetjobs.model.FailureReason;
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
 * @param breach     the limit the attempt passed, which ended it (OOM kill, disk cap); null when none
 */
public record Outcome(int exitCode, Integer signal, Instant finishedAt, String stdoutTail, String stderrTail,
        Breach breach) {
    private static final int HIGHEST_SIGNAL = 64;

    /**
     * A limit of the machine's that the attempt passed.
     *
     * @param reason OOM_KILLED or DISK_LIMIT_EXCEEDED
     * @param detail what a person can act on: {@code used more than its 512 MiB (limit 576 MiB with headroom)}
     */
    public record Breach(FailureReason reason, String detail) {
        public Breach {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(detail, "detail");
        }
    }

    public Outcome {
        Objects.requireNonNull(finishedAt, "finishedAt");
        Objects.requireNonNull(stdoutTail, "stdoutTail");
        Objects.requireNonNull(stderrTail, "stderrTail");
    }

    public Outcome(int exitCode, Integer signal, Instant finishedAt, String stdoutTail, String stderrTail) {
        this(exitCode, signal, finishedAt, stdoutTail, stderrTail, null);
    }

    static Outcome of(int exitCode, Instant finishedAt, String stdoutTail, String stderrTail) {
        return new Outcome(exitCode, signalOf(exitCode), finishedAt, stdoutTail, stderrTail);
    }

    Outcome withBreach(Breach what) {
        return new Outcome(exitCode, signal, finishedAt, stdoutTail, stderrTail, what);
    }

    static Integer signalOf(int exitCode) {
        return exitCode > 128 && exitCode <= 128 + HIGHEST_SIGNAL ? exitCode - 128 : null;
    }
}
