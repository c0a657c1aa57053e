package io.fleetjobs.gateway;

import io.fleetjobs.store.TenantStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.core.NestedExceptionUtils;

/**
 * Whether the gateway can check keys yet. While the platform starts, the schema may not be migrated and
 * job-service may not have installed the bootstrap admin key: a key looked up then would be called unknown
 * (401) when it is only not there yet. Ready once the key store answers: with the bootstrap admin token
 * configured, once the gateway has installed it itself ({@link TenantStore#bootstrapAdmin}, idempotent, as
 * job-service does), else once the schema is there. Until then it tries again at most once per
 * {@link #RETRY_EVERY}, on a request or a health check, by the clock; once ready it stays ready (a database
 * that fails later is FrontDoor's 503 of an unreachable key store). Registered as health component
 * {@code keyStore}, part of readiness.
 */
final class KeyStoreReadiness implements HealthIndicator {
    private static final Logger log = LoggerFactory.getLogger(KeyStoreReadiness.class);
    static final Duration RETRY_EVERY = Duration.ofSeconds(1);
    static final String BOOTSTRAP_TENANT = "admin";

    private final TenantStore tenants;
    private final String bootstrapToken;
    private final InstantSource clock;
    private final AtomicReference<Instant> lastTry = new AtomicReference<>();
    private volatile boolean ready;
    private volatile String notReadyBecause = "not checked yet";

    /** {@code bootstrapToken} null or blank: none; readiness is then the schema alone. */
    KeyStoreReadiness(TenantStore tenants, String bootstrapToken, InstantSource clock) {
        this.tenants = tenants;
        this.bootstrapToken = bootstrapToken == null || bootstrapToken.isBlank() ? null : bootstrapToken.strip();
        this.clock = clock;
    }

    /** Whether keys can be checked; when not, and the last try is {@link #RETRY_EVERY} old, tries again first. */
    boolean ready() {
        if (ready) {
            return true;
        }
        Instant now = clock.instant();
        Instant last = lastTry.get();
        if (last != null && now.isBefore(last.plus(RETRY_EVERY))) {
            return false;
        }
        if (!lastTry.compareAndSet(last, now)) {
            return ready; // another request is trying right now
        }
        try {
            if (bootstrapToken != null) {
                tenants.bootstrapAdmin(BOOTSTRAP_TENANT, bootstrapToken);
                log.info("key store ready: bootstrap admin key installed for tenant '{}'", BOOTSTRAP_TENANT);
            } else {
                tenants.checkSchema();
                log.info("key store ready: the schema is there");
            }
            ready = true;
        } catch (RuntimeException e) {
            // whatever fails (no database, no schema yet), keys cannot be checked: the next try says more
            String cause = String.valueOf(NestedExceptionUtils.getMostSpecificCause(e).getMessage());
            String because = "the key store does not answer yet: " + cause.lines().findFirst().orElse("");
            if (!because.equals(notReadyBecause)) {
                log.warn("{}; API calls are 503 until it does", because);
            }
            notReadyBecause = because;
        }
        return ready;
    }

    @Override
    public Health health() {
        return ready() ? Health.up().build() : Health.outOfService().withDetail("reason", notReadyBecause).build();
    }
}
