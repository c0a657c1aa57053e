package io.fleetjobs.agent.process;

/**
 * An attempt could not be started: its working directory or cgroup could not be made, its environment was
 * invalid, or the process could not be spawned (START_FAILED, the platform's fault); or, as
 * {@link CommandNotStartableException}, its command cannot be run (the job's fault). No process of it runs.
 */
public sealed class StartFailedException extends Exception permits CommandNotStartableException {
    private static final long serialVersionUID = 1L;

    public StartFailedException(String message) {
        super(message);
    }

    public StartFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
