package io.fleetjobs.model;

import io.fleetjobs.model.agent.AttemptReport;

/**
 * Whether an agent's report of an attempt may change anything (BRIEF decision 6): the lease epoch and the
 * machine are the fencing token, and the attempt's own table of moves keeps a late report from moving it back.
 */
public final class ReportFence {
    private ReportFence() {
    }

    /** The attempt as the database holds it when the report is applied. */
    public record RecordedAttempt(AttemptState state, long epoch, String machineId) {
    }

    public enum Verdict {
        /** No such attempt. */
        STALE_UNKNOWN_ATTEMPT,
        /** The attempt was leased again since (another epoch): the report is of a lease that is gone. */
        STALE_OTHER_EPOCH,
        /** The report names a machine the attempt is not on. */
        STALE_OTHER_MACHINE,
        /** The attempt cannot move to the reported state: it is there already, or has ended. */
        DUPLICATE,
        APPLY;

        public boolean isStale() {
            return this == STALE_UNKNOWN_ATTEMPT || this == STALE_OTHER_EPOCH || this == STALE_OTHER_MACHINE;
        }
    }

    /**
     * @param recorded null when the attempt does not exist
     * @return the verdict; a report without a machine (one the platform makes itself) is not checked for it
     */
    public static Verdict classify(AttemptReport report, RecordedAttempt recorded) {
        if (recorded == null) {
            return Verdict.STALE_UNKNOWN_ATTEMPT;
        }
        if (recorded.epoch() != report.epoch()) {
            return Verdict.STALE_OTHER_EPOCH;
        }
        if (report.machineId() != null && !report.machineId().equals(recorded.machineId())) {
            return Verdict.STALE_OTHER_MACHINE;
        }
        return recorded.state().canMoveTo(report.state()) ? Verdict.APPLY : Verdict.DUPLICATE;
    }
}
