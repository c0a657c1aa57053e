package io.fleetjobs.reconciler.sweeps;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.RepairStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;

/**
 * The backstop for time limits: agents kill attempts at their job's {@code timeoutSeconds}; an
 * attempt still RUNNING well past it (the agent's kill and report lost, or the agent wedged) is
 * failed as TIMEOUT here, and the agent's next heartbeat reply tells it to kill the process.
 */
public final class OverdueAttemptSweep implements Sweep {
    private final RepairStore repair;
    private final AttemptReports reports;
    private final Duration slack;
    private final MeterRegistry meters;

    /** @param slack how long past the limit before stepping in: the kill grace and a report's way home */
    public OverdueAttemptSweep(RepairStore repair, AttemptReports reports, Duration slack, MeterRegistry meters) {
        this.repair = repair;
        this.reports = reports;
        this.slack = slack;
        this.meters = meters;
    }

    @Override
    public String name() {
        return "overdue-attempts";
    }

    @Override
    public int run(Instant now) {
        int ended = 0;
        for (RepairStore.HeldAttempt a : repair.overdue(now, slack.toSeconds())) {
            var outcome = reports.apply(new AttemptReport(a.jobId(), a.attempt(), a.epoch(), a.machineId(),
                    AttemptState.FAILED, null, FailureReason.TIMEOUT, null, now, null,
                    "ran past its time limit of " + a.timeoutSeconds() + "s and its agent did not stop it"));
            if (outcome == AttemptReports.Outcome.APPLIED) {
                ended++;
            }
        }
        meters.counter("reconciler.actions", "kind", "timed-out").increment(ended);
        return ended;
    }
}
