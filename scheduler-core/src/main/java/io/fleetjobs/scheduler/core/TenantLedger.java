package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.MachineStatus;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What each tenant holds during one plan: its usage from the snapshot plus what the plan has placed
 * for it so far, and its dominant share of the cluster.
 *
 * <p>Dominant share (Dominant Resource Fairness, Ghodsi et al. 2011): the largest, over CPU, memory and
 * GPUs, of what the tenant holds divided by the cluster's total, then divided by the tenant's weight.
 * The cluster's total counts every machine of the snapshot that is not LOST (a SUSPECT or DRAINING
 * machine still runs its tenants' attempts), so a flapping machine does not make shares jump. A
 * dimension the cluster has none of (no GPUs at all) counts for nothing.
 */
final class TenantLedger {
    private final Snapshot snapshot;
    private final Map<UUID, Account> accounts = new HashMap<>();
    private final double totalCpuMillis;
    private final double totalMemoryMb;
    private final double totalGpus;

    TenantLedger(Snapshot snapshot) {
        this.snapshot = snapshot;
        long cpu = 0;
        long memory = 0;
        long gpus = 0;
        for (MachineView view : snapshot.machines()) {
            FleetMachine machine = view.machine();
            if (machine.status() != MachineStatus.LOST) {
                cpu += machine.capacity().cpuMillis();
                memory += machine.capacity().memoryMb();
                gpus += machine.capacity().gpus();
            }
        }
        this.totalCpuMillis = cpu;
        this.totalMemoryMb = memory;
        this.totalGpus = gpus;
    }

    Account account(UUID tenantId) {
        return accounts.computeIfAbsent(tenantId, id -> new Account(snapshot.tenant(id)));
    }

    double dominantShare(UUID tenantId) {
        Account account = account(tenantId);
        double share = Math.max(fraction(account.cpuMillis, totalCpuMillis),
                Math.max(fraction(account.memoryMb, totalMemoryMb), fraction(account.gpus, totalGpus)));
        return share / account.view.weight();
    }

    /** The tenant now also holds what the job takes. */
    void charge(PendingJob job) {
        Account account = account(job.tenantId());
        account.cpuMillis += job.cpuMillis();
        account.memoryMb += job.memoryMb();
        account.gpus += job.gpuCount();
    }

    private static double fraction(long held, double total) {
        return total == 0 ? 0 : held / total;
    }

    /** One tenant's holdings during the plan. */
    static final class Account {
        final TenantView view;
        long cpuMillis;
        long memoryMb;
        long gpus;

        private Account(TenantView view) {
            this.view = view;
            this.cpuMillis = view.usedCpuMillis();
            this.memoryMb = view.usedMemoryMb();
            this.gpus = view.usedGpus();
        }

        long held(Dimension dimension) {
            return switch (dimension) {
                case GPU -> gpus;
                case CPU -> cpuMillis;
                case MEMORY -> memoryMb;
            };
        }
    }
}
