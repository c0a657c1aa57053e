package io.fleetjobs.model;

/** Why an attempt ended without success, and which retry budget the failure spends. */
public enum FailureReason {
    /** The process exited non-zero. Retryable only for the exit codes the job names. */
    EXIT_CODE(FailureClass.USER),
    /** The attempt ran past {@code execution.timeoutSeconds}. */
    TIMEOUT(FailureClass.TIMEOUT),
    /** The machine stopped heartbeating for the lost TTL. */
    MACHINE_LOST(FailureClass.INFRASTRUCTURE),
    /** The attempt was leased but not started before its lease expired. */
    LEASE_EXPIRED(FailureClass.INFRASTRUCTURE),
    /** The agent restarted and killed what its previous incarnation left running. */
    AGENT_RESTARTED(FailureClass.INFRASTRUCTURE),
    /** The agent could not start the process (command not found, work dir, ...). */
    START_FAILED(FailureClass.INFRASTRUCTURE);

    private final FailureClass failureClass;

    FailureReason(FailureClass failureClass) {
        this.failureClass = failureClass;
    }

    public FailureClass failureClass() {
        return failureClass;
    }

    /** The classes of BRIEF.md decision 7: each has its own retry rule. */
    public enum FailureClass {
        /** The job's own fault: an exit code; transient only when the job marks the code retryable. */
        USER,
        /** The job ran out of time. */
        TIMEOUT,
        /** The platform's fault: retried on the platform's budget, not the user's. */
        INFRASTRUCTURE
    }
}
