package io.fleetjobs.gateway;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code jobs.gateway.*}: where the services are, how long a key lookup is trusted, the body limit
 * and the per-tenant rate limits.
 *
 * @param jobServiceUrl job-service ({@code JOBS_JOB_SERVICE_URL})
 * @param schedulerUrl scheduler-service ({@code JOBS_SCHEDULER_URL})
 * @param keyCacheTtl how long an API key's lookup (found or not) is reused; a revoked key works at most this long
 * @param maxBodyBytes the largest request body; larger is 413
 * @param rateLimit requests per tenant
 */
@ConfigurationProperties("jobs.gateway")
public record GatewayProperties(
        @DefaultValue("http://localhost:8081") URI jobServiceUrl,
        @DefaultValue("http://localhost:8082") URI schedulerUrl,
        @DefaultValue("5s") Duration keyCacheTtl,
        @DefaultValue("1048576") long maxBodyBytes,
        @DefaultValue RateLimit rateLimit) {

    /**
     * On average {@code requestsPerSecond}, and up to {@code burst} at once, per tenant; {@code tenants}
     * overrides both for a tenant by name.
     */
    public record RateLimit(@DefaultValue("200") double requestsPerSecond, @DefaultValue("400") int burst,
            Map<String, Limit> tenants) {
        public RateLimit {
            tenants = tenants == null ? Map.of() : Map.copyOf(tenants);
        }

        Limit forTenant(String name) {
            return tenants.getOrDefault(name, new Limit(requestsPerSecond, burst));
        }
    }

    public record Limit(double requestsPerSecond, int burst) {
        public Limit {
            if (requestsPerSecond <= 0 || burst < 1) {
                throw new IllegalArgumentException("a rate limit needs requests-per-second > 0 and burst >= 1");
            }
        }
    }
}
