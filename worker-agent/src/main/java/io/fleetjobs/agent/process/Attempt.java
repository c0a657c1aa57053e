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

    /**
     * Stops the attempt as SIGKILL would, now, whatever grace a {@link #terminate()} before gave it: the lease's
     * fence, whose kill is due by a deadline of its own. Idempotent, returns at once.
     */
    default void kill() {
        terminate();
    }

    /** The last bytes of standard output so far. */
    String stdoutTail();

    /** The last bytes of standard error so far. */
    String stderrTail();
}
