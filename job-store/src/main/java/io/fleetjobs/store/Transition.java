package io.fleetjobs.store;

import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobState;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A move of a job to another state and what it sets on the way; say what you mean with the
 * factory methods, then apply it with {@link JobStore#transition(JobRecord, Transition)}.
 */
public final class Transition {
    final JobState to;
    final String reason;
    Integer attempt;
    boolean setMachine;
    String machineId;
    boolean setOutcome;
    Integer exitCode;
    FailureReason failureReason;
    Instant notBefore;
    int userFailures;
    int infraFailures;
    /** When the move happened, where that is not when it is written (null: now). */
    Instant at;
    final Map<String, String> data = new LinkedHashMap<>();

    private Transition(JobState to, String reason) {
        this.to = to;
        this.reason = reason;
    }

    public static Transition to(JobState to, String reason) {
        return new Transition(to, reason);
    }

    public static Transition admit() {
        return to(JobState.QUEUED, "admitted; waiting for placement");
    }

    public static Transition cancel(String reason) {
        return to(JobState.CANCELED, reason);
    }

    /** The job is placed: attempt {@code n} on {@code machineId}. */
    public Transition onAttempt(int n, String machineId) {
        this.attempt = n;
        this.setMachine = true;
        this.machineId = machineId;
        data.put("attempt", Integer.toString(n));
        data.put("machineId", machineId);
        return this;
    }

    /** The attempt ended: exit code and failure reason (both may be null). */
    public Transition outcome(Integer exitCode, FailureReason failureReason) {
        this.setOutcome = true;
        this.exitCode = exitCode;
        this.failureReason = failureReason;
        if (exitCode != null) {
            data.put("exitCode", exitCode.toString());
        }
        if (failureReason != null) {
            data.put("failureReason", failureReason.name());
        }
        return this;
    }

    /** Leave the machine (back to the queue). */
    public Transition offMachine() {
        this.setMachine = true;
        this.machineId = null;
        return this;
    }

    /** Not to be claimed before this time (backoff). */
    public Transition notBefore(Instant notBefore) {
        this.notBefore = notBefore;
        return this;
    }

    /** Spend attempts from the user's and the platform's retry budgets. */
    public Transition spend(int user, int infra) {
        this.userFailures = user;
        this.infraFailures = infra;
        return this;
    }

    /**
     * The move happened at {@code at}, before it could be written (a start the agent reported only
     * with the end): its history row and event say so; the job row's {@code updated_at} is still
     * the time of the write.
     */
    Transition at(Instant at) {
        this.at = at.truncatedTo(ChronoUnit.MICROS); // as PostgreSQL keeps it, so the event says what the history says
        return this;
    }

    public JobState target() {
        return to;
    }

    public String reason() {
        return reason;
    }
}
