package io.fleetjobs.jobservice.api;

import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * How many listings of jobs filtered by queue, name or label one tenant may have in progress in this instance at
 * once. No such filter has an index (a name matches anywhere in it, a label is a key of the spec's JSON, a queue is
 * read from each row): such a listing reads the tenant's jobs newest first until it has its page, every one of them
 * when few match (half a second of PostgreSQL at 200,000 jobs for a name, a tenth for a queue), and a tenant may call
 * 200 times a second. Past the bound a listing is refused at once (429), not queued.
 */
final class TenantScans {
    private final int perTenant;
    private final ConcurrentHashMap<UUID, Semaphore> inProgress = new ConcurrentHashMap<>();

    TenantScans(int perTenant) {
        this.perTenant = perTenant;
    }

    /** The bound. */
    int perTenant() {
        return perTenant;
    }

    /** Starts one of the tenant's scans, or false when it has {@link #perTenant} in progress already. */
    boolean tryStart(UUID tenant) {
        return inProgress.computeIfAbsent(tenant, t -> new Semaphore(perTenant)).tryAcquire();
    }

    /** Ends a scan that {@link #tryStart} started. */
    void end(UUID tenant) {
        inProgress.get(tenant).release();
    }
}
