package io.fleetjobs.reconciler.sweeps;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.RepairStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.util.function.UnaryOperator;

/**
 * Attempts leased to a machine but not started before their lease expired end LEASE_EXPIRED and
 * are retried (a new attempt, on the platform's budget). Should the agent start the old one late,
 * its report is for an attempt that has ended (no effect) and the reply tells it to kill it.
 *
 * <p>A lease reaches its agent only by a heartbeat's answer, so a lease is judged expired at the time silence is
 * judged ({@code judgeAt}: how far the scheduler's replicas have heard their fleet): a control plane too busy to
 * answer its agents does not blame their machines for leases it could not hand out (nor drain them for it).
 */
public final class ExpiredLeaseSweep implements Sweep {
    private final RepairStore repair;
    private final AttemptReports reports;
    private final MeterRegistry meters;
    private final UnaryOperator<Instant> judgeAt;

    public ExpiredLeaseSweep(RepairStore repair, AttemptReports reports, MeterRegistry meters) {
        this(repair, reports, meters, now -> now);
    }

    /** @param judgeAt the time leases are judged at, no later than now (the heartbeat watermark) */
    public ExpiredLeaseSweep(RepairStore repair, AttemptReports reports, MeterRegistry meters,
            UnaryOperator<Instant> judgeAt) {
        this.judgeAt = judgeAt;
        this.repair = repair;
        this.reports = reports;
        this.meters = meters;
    }

    @Override
    public String name() {
        return "expired-leases";
    }

    @Override
    public int run(Instant now) {
        int ended = 0;
        for (RepairStore.HeldAttempt a : repair.expiredLeases(judgeAt.apply(now))) {
            var outcome = reports.apply(new AttemptReport(a.jobId(), a.attempt(), a.epoch(), a.machineId(),
                    AttemptState.FAILED, null, FailureReason.LEASE_EXPIRED, null, now, null,
                    "the lease expired before the agent started the attempt"));
            if (outcome == AttemptReports.Outcome.APPLIED) {
                ended++;
            }
        }
        meters.counter("reconciler.actions", "kind", "lease-expired").increment(ended);
        return ended;
    }
}
