package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import java.util.UUID;

/** One placement of the plan: the tenant's job goes on the machine and holds {@code amounts} there. */
public record Assignment(UUID jobId, UUID tenantId, String machineId, Amounts amounts) {
}
