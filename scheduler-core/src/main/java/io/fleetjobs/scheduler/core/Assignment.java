package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import java.util.UUID;

/**
 * One placement of the plan: the tenant's job goes on the machine and holds {@code amounts} there.
 *
 * @param replica 0 for a job; a gang's replicas are 0 to N-1, their ranks, in the order they were placed
 */
public record Assignment(UUID jobId, UUID tenantId, String machineId, Amounts amounts, int replica) {
    /** The placement of a job of one replica. */
    public Assignment(UUID jobId, UUID tenantId, String machineId, Amounts amounts) {
        this(jobId, tenantId, machineId, amounts, 0);
    }
}
