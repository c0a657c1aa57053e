package io.fleetjobs.agent.process;

import io.fleetjobs.model.logs.LogStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What the agent starts attempts with: {@link ProcessRunner} on a real machine, a simulated runner in the fleet simulator. */
public interface AttemptRunner {
    /**
     * Ends whatever a previous incarnation of this agent left running.
     *
     * @return the attempts it ended
     */
    List<AttemptKey> killLeftovers();

    /**
     * Starts an attempt of the job's command with the job's environment.
     *
     * @throws StartFailedException when it cannot start (reported as START_FAILED)
     */
    Attempt start(AttemptKey key, List<String> command, Map<String, String> env) throws StartFailedException;

    /**
     * Starts an attempt held to what the job asked for, where this runner can enforce it.
     *
     * @throws CommandNotStartableException when the job's command cannot be run (the job's failure)
     */
    default Attempt start(AttemptKey key, List<String> command, Map<String, String> env, Requested requested)
            throws StartFailedException {
        return start(key, command, env);
    }

    /** How this runner holds attempts apart. */
    default Isolation isolation() {
        return Isolation.NONE;
    }

    /**
     * The file an attempt's stream is kept in, while this runner keeps it (until the attempt's directory is removed
     * after its retention); empty where the runner keeps no files.
     */
    default Optional<Path> logFile(AttemptKey key, LogStream stream) {
        return Optional.empty();
    }

    /** Periodic upkeep, called from the agent's loop: removes the directories of attempts past their retention. */
    default void housekeeping() {
    }
}
