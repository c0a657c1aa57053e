package io.fleetjobs.gateway;

import io.fleetjobs.support.CallerIdentity;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;

/**
 * One Resilience4j {@link RateLimiter} per tenant. A limit of {@code r} requests per second with a
 * burst of {@code b} is {@code b} permits per period of {@code b / r} seconds: up to {@code b} at once,
 * {@code r} per second on average. A request that finds no permit is not queued: it is refused with the
 * time until the next period, which becomes {@code Retry-After}.
 */
final class TenantRateLimits {
    private final GatewayProperties.RateLimit limits;
    private final RateLimiterRegistry registry = RateLimiterRegistry.ofDefaults();

    TenantRateLimits(GatewayProperties.RateLimit limits) {
        this.limits = limits;
    }

    /** Zero when the request may go; else how long (at least one second) the tenant should wait. */
    Duration acquire(CallerIdentity caller) {
        RateLimiter limiter = registry.rateLimiter("tenant-" + caller.tenantId(), () -> config(caller.tenantName()));
        if (limiter.acquirePermission()) {
            return Duration.ZERO;
        }
        long nanos = limiter instanceof AtomicRateLimiter atomic ? atomic.getDetailedMetrics().getNanosToWait() : 1_000_000_000L;
        return Duration.ofSeconds(Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L));
    }

    private RateLimiterConfig config(String tenantName) {
        GatewayProperties.Limit limit = limits.forTenant(tenantName);
        long periodNanos = Math.max(1_000_000L, Math.round(limit.burst() * 1e9 / limit.requestsPerSecond()));
        return RateLimiterConfig.custom().limitForPeriod(limit.burst()).limitRefreshPeriod(Duration.ofNanos(periodNanos))
                .timeoutDuration(Duration.ZERO).build();
    }
}
