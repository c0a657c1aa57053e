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
    /**
     * The platform could not start the process (the fork, the sandbox or its cgroup failed): the machine's
     * fault, counted by auto-drain. A command the job names that cannot be run is {@link #COMMAND_NOT_STARTABLE}.
     */
    START_FAILED(FailureClass.INFRASTRUCTURE),
    /**
     * The job's command cannot be started: not found on the job's PATH (exit code 127) or not executable by
     * the job's user (126). The job's fault; retried like an exit code, only when the job lists 127 or 126
     * in {@code retryOnExitCodes}.
     */
    COMMAND_NOT_STARTABLE(FailureClass.USER),
    /**
     * The kernel's OOM killer ended the attempt: it used more memory than it asked for (its cgroup's limit is
     * {@code memoryMb} plus the agent's headroom). The job's fault; reported with exit code 137, and retried
     * like an exit code: only when the job lists 137 in {@code retryOnExitCodes}.
     */
    OOM_KILLED(FailureClass.USER),
    /**
     * The attempt's working directory grew past the agent's per-attempt disk cap, and the agent killed it.
     * The job's fault; reported with exit code 137 and retried only when the job lists 137.
     */
    DISK_LIMIT_EXCEEDED(FailureClass.USER),
    /**
     * Ended to make room for a job of a strictly higher priority (SIGTERM, then its kill grace): back in the queue at
     * once, spending neither the user's attempts nor the platform's budget (however often it is preempted, a job never
     * fails for it), and not counted against the machine by auto-drain.
     */
    PREEMPTED(FailureClass.INFRASTRUCTURE),
    /**
     * Another replica of the same gang failed, and this one was ended with it (SIGTERM, then its kill grace): not
     * this replica's fault, not the machine's. The gang is retried or failed as a whole, by the reason of the
     * replica that failed first.
     */
    GANG_MEMBER_FAILED(FailureClass.INFRASTRUCTURE);

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
