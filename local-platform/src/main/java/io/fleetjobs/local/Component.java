package io.fleetjobs.local;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** One named piece of the local platform: a process (or the embedded PostgreSQL) that can be started, stopped, killed. */
interface Component {
    String name();

    /** Starts it and waits until it serves; a no-op while it runs. Throws, saying where to look, when it does not come up. */
    void start();

    /** Asks it to stop (SIGTERM, or its own clean shutdown), waits up to {@code grace}, then kills it. A no-op when it is not running. */
    void stop(Duration grace);

    /** Kills it at once (SIGKILL), leaving whatever a crash leaves. A no-op when it is not running. */
    void kill();

    boolean isRunning();

    /** Its main process while it runs. */
    Optional<ProcessHandle> process();

    /** Where its output goes. */
    Path log();

    /** Where it serves, for people: {@code :8081}, {@code 127.0.0.1:59092}, {@code machine local-1}. */
    String address();
}
