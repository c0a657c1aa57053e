package io.fleetjobs.store;

import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A change of a job row: a move to another state and what it sets on the way, or a mark that keeps
 * the state (a cancel request). Say what you mean with the factory methods; every change is written
 * by {@link JobWrites}, whichever caller makes it.
 */
public final class Transition {
    final JobState to;
    final String reason;
    Integer attempt;
    /** The next attempt (the row's attempt + 1), where the caller did not read the row's count. */
    boolean nextAttempt;
    /** Marks the job to be canceled on its machine; the state stays. */
    boolean cancelRequest;
    boolean setMachine;
    String machineId;
    boolean setOutcome;
    Integer exitCode;
    FailureReason failureReason;
    Instant notBefore;
    int userFailures;
    int infraFailures;
    /** Queued ahead of its priority's jobs that the platform did not fail, or by submission (null: as it was). */
    Boolean ahead;
    /** When the move happened, where that is not when it is written (null: now). */
    Instant at;
    /**
     * A move the job made just before this one, written with it: one update of the row (its version moves by two),
     * a history row and an event for each (null: none). What it sets on the row besides its state and reason is
     * not kept, so it is a plain move ({@link #after}).
     */
    Transition before;
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

    /**
     * A job canceled off any machine (SUBMITTED, QUEUED): its end is the cancel, so the exit code and failure reason of
     * an attempt before it (why it waited for a retry) are cleared, as a cancel an agent carries out clears them.
     */
    public static Transition cancel(String reason) {
        return to(JobState.CANCELED, reason).outcome(null, null);
    }

    /** Placed on {@code machineId} as the job's next attempt: what a plan's commit writes. */
    static Transition placed(String machineId) {
        Transition t = to(JobState.SCHEDULED, "placed on " + machineId + "; waiting for its agent to start it");
        t.nextAttempt = true;
        t.setMachine = true;
        t.machineId = machineId;
        return t; // the attempt number joins data once written
    }

    /** A job on a machine, in {@code state}, to be stopped: its state stays until the agent confirms. */
    static Transition cancelRequest(JobState state, String machineId) {
        Transition t = to(state, "cancel requested; waiting for the agent to stop the attempt");
        t.cancelRequest = true;
        if (machineId != null) {
            t.data.put("machineId", machineId);
        }
        return t;
    }

    JobEventType eventType() {
        return cancelRequest ? JobEventType.CANCEL_REQUESTED : JobEventType.STATE_CHANGED;
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
     * Back in the queue ahead of the jobs of its priority that the platform did not fail ({@code true}: work the
     * platform lost), or at its place by submission ({@code false}): the claim's order is priority, then this, then id.
     */
    public Transition ahead(boolean ahead) {
        this.ahead = ahead;
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

    /**
     * This move, written together with {@code step}, the move the job made just before it (a start the agent
     * reported only with the end): the job row is updated once, and each move keeps its history row and event.
     * The step must be a plain move: state, reason and when, nothing else on the row.
     */
    Transition after(Transition step) {
        if (step.nextAttempt || step.cancelRequest || step.setMachine || step.setOutcome || step.attempt != null
                || step.notBefore != null || step.userFailures != 0 || step.infraFailures != 0 || step.ahead != null
                || step.before != null) {
            throw new IllegalArgumentException("only a plain move is written before another: " + step.to);
        }
        this.before = step;
        return this;
    }

    public JobState target() {
        return to;
    }

    public String reason() {
        return reason;
    }
}
