package io.fleetjobs.model;

/** A caller asked for a move that {@link JobState}'s table does not allow. A bug, never a race. */
public final class IllegalTransitionException extends IllegalStateException {
    private final JobState from;
    private final JobState to;

    public IllegalTransitionException(JobState from, JobState to) {
        super("illegal job transition " + from + " -> " + to);
        this.from = from;
        this.to = to;
    }

    public JobState from() {
        return from;
    }

    public JobState to() {
        return to;
    }
}
