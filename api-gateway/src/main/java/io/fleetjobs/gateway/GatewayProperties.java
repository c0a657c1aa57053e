package io.fleetjobs.gateway;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code jobs.gateway.*}: where the services are, how long a key lookup is trusted, the body limit,
 * the per-tenant rate limits and, optionally, an issuer of JWTs.
 *
 * @param jobServiceUrl job-service ({@code JOBS_JOB_SERVICE_URL})
 * @param schedulerUrl scheduler-service ({@code JOBS_SCHEDULER_URL})
 * @param keyCacheTtl how long an API key's lookup (found or not) is reused; a revoked key works at most this long
 * @param keyLookupsPerSecond lookups of keys not yet answered allowed per client address and second (a burst of as
 *        many): what a client guessing keys, or sending a new one each time, may cost the database; past it 429
 * @param maxBodyBytes the largest request body; larger is 413
 * @param rateLimit requests per tenant
 * @param jwt JWT bearer tokens besides API keys; off unless an issuer or a JWK set is named
 * @param maxConnectionsPerService connections to each service at once: each request in progress holds one, a live
 *        stream ({@code text/event-stream}, followed logs) for as long as it lasts (the HTTP client's own default, 5,
 *        let five open streams hold up every other call to their service); a request past it waits for one
 * @param maxStreamsPerTenant live streams ({@code follow=true}) one tenant may have open through this gateway at
 *        once; one more is 429 with {@code Retry-After}
 * @param followReadTimeout how long a followed log ({@code …/logs?follow=true}) may be silent before the gateway
 *        gives up on it (as {@code text/plain} it has no heartbeat: its silence is the job's); every other call has
 *        {@code spring.http.clients.read-timeout}
 */
@ConfigurationProperties("jobs.gateway")
public record GatewayProperties(
        @DefaultValue("http://localhost:8081") URI jobServiceUrl,
        @DefaultValue("http://localhost:8082") URI schedulerUrl,
        @DefaultValue("5s") Duration keyCacheTtl,
        @DefaultValue("20") int keyLookupsPerSecond,
        @DefaultValue("1048576") long maxBodyBytes,
        @DefaultValue RateLimit rateLimit,
        @DefaultValue Jwt jwt,
        @DefaultValue("1000") int maxConnectionsPerService,
        @DefaultValue("64") int maxStreamsPerTenant,
        @DefaultValue("24h") Duration followReadTimeout) {
    public GatewayProperties {
        if (followReadTimeout.isNegative() || followReadTimeout.isZero()) {
            throw new IllegalArgumentException("jobs.gateway.follow-read-timeout must be positive, was " + followReadTimeout);
        }
        if (maxStreamsPerTenant < 1) {
            throw new IllegalArgumentException("jobs.gateway.max-streams-per-tenant must be at least 1, was "
                    + maxStreamsPerTenant);
        }
        if (maxConnectionsPerService < 1) {
            throw new IllegalArgumentException("jobs.gateway.max-connections-per-service must be at least 1, was "
                    + maxConnectionsPerService);
        }
    }

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

    /**
     * {@code jobs.gateway.jwt.*}: a bearer token that is a JWT is checked (signature, expiry, issuer, audience)
     * against these, when {@code issuerUri} or {@code jwkSetUri} is set; API keys keep working beside it.
     *
     * @param issuerUri the issuer the tokens must name ({@code iss}); without {@code jwkSetUri} its keys are
     *                  found through its OpenID discovery document
     * @param jwkSetUri where the issuer's public keys are (JWKS); optional when {@code issuerUri} is set
     * @param audience the audience the tokens must name ({@code aud}); not checked when unset
     * @param tenantClaim the claim that names the caller's tenant (a tenant that exists on the platform)
     * @param rolesClaim the claim of the caller's roles: a list, or a string of roles separated by spaces (as
     *                   {@code scope} is)
     * @param adminRole the role among them that makes the caller an admin; any other is a user
     */
    public record Jwt(String issuerUri, String jwkSetUri, String audience, @DefaultValue("tenant") String tenantClaim,
            @DefaultValue("roles") String rolesClaim, @DefaultValue("admin") String adminRole) {
        public Jwt {
            issuerUri = blankToNull(issuerUri); // an empty environment variable means "not set"
            jwkSetUri = blankToNull(jwkSetUri);
            audience = blankToNull(audience);
        }

        public boolean enabled() {
            return issuerUri != null || jwkSetUri != null;
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s.strip();
        }
    }
}
