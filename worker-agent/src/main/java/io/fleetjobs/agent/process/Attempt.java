package io.fleetjobs.agent.process;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * One attempt as the agent sees it, whatever runs it: a process group ({@link RunningAttempt}) or the
 * fleet simulator's timer.
 */
public interface Attempt {
    Instant startedAt();

    /** Completes when the attempt is over; each call returns a new dependent future. */
    CompletableFuture<Outcome> exit();

    /** Stops the attempt as SIGTERM (then SIGKILL) would; idempotent, returns at once. */
    void terminate();

    /** The last bytes of standard output so far. */
    String stdoutTail();

    /** The last bytes of standard error so far. */
    String stderrTail();
}
