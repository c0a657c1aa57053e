package io.fleetjobs.agent.process;

/**
 * An attempt could not be started: its command was not found, its working directory could not be made,
 * its environment was invalid, or the process could not be spawned. No process of it runs.
 */
public final class StartFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    public StartFailedException(String message) {
        super(message);
    }

    public StartFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
