package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import java.util.Objects;
import java.util.UUID;

/**
 * An attempt that holds room on a machine, as preemption sees it.
 *
 * @param started     when it was placed, in an order where larger is later (its placement time in milliseconds, say):
 *                    of victims otherwise alike, the most recently started go first (least work lost)
 * @param preemptible false when its job opted out ({@code preemptible: false})
 */
public record RunningAttempt(UUID jobId, int attempt, UUID tenantId, int priority, Amounts held, long started,
                             boolean preemptible) {
    public RunningAttempt {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(held, "held");
    }
}
