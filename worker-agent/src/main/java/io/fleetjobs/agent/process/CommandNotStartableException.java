package io.fleetjobs.agent.process;

/**
 * The job's command cannot be started because of the job: not found on its PATH (exit code 127, as a shell
 * says it) or not executable by the job's user (126). The job's failure (COMMAND_NOT_STARTABLE), not the
 * machine's: it must not count towards draining the machine.
 */
public final class CommandNotStartableException extends StartFailedException {
    private static final long serialVersionUID = 1L;
    public static final int NOT_FOUND = 127;
    public static final int NOT_EXECUTABLE = 126;

    private final int exitCode;

    public CommandNotStartableException(String message, int exitCode) {
        super(message);
        this.exitCode = exitCode;
    }

    /** 127 (not found) or 126 (not executable). */
    public int exitCode() {
        return exitCode;
    }
}
