package io.fleetjobs.gateway;

import io.fleetjobs.support.CallerIdentity;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadRegistry;
import java.time.Duration;
import java.util.Optional;

/**
 * At most {@code perTenant} live streams ({@code follow=true}: events, followed logs) of one tenant open through
 * this gateway at once: one Resilience4j {@link Bulkhead} per tenant, never waited for. A stream holds a
 * connection to its service and a thread on both sides for as long as it lasts; without a limit one tenant's
 * thousands of open tabs (or a script that never closes what it opens) took what every other tenant's calls need.
 */
final class TenantStreams {
    private final int perTenant;
    private final BulkheadRegistry registry;

    TenantStreams(int perTenant) {
        this.perTenant = perTenant;
        this.registry = BulkheadRegistry.of(BulkheadConfig.custom().maxConcurrentCalls(perTenant)
                .maxWaitDuration(Duration.ZERO).build());
    }

    /** The tenant's place for one more stream, to be given back ({@link Bulkhead#onComplete()}) when it ends; empty when it has {@link #perTenant()} open. */
    Optional<Bulkhead> open(CallerIdentity caller) {
        Bulkhead streams = registry.bulkhead("tenant-" + caller.tenantId());
        return streams.tryAcquirePermission() ? Optional.of(streams) : Optional.empty();
    }

    int perTenant() {
        return perTenant;
    }
}
