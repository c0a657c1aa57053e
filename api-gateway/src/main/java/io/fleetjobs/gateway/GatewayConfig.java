package io.fleetjobs.gateway;

import io.fleetjobs.store.ApiKeyStore;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.support.SignedIdentity;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.InstantSource;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.core5.util.TimeValue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.HttpClientSettings;
import org.springframework.boot.http.client.HttpComponentsClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.autoconfigure.ClientHttpRequestFactoryBuilderCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.jdbc.core.simple.JdbcClient;

@Configuration(proxyBeanMethods = false)
class GatewayConfig {
    /**
     * The connections the proxy keeps to each service ({@link GatewayProperties#maxConnectionsPerService}), two
     * services' worth in all; and no call sent twice. Apache HttpClient retries an idempotent call by itself (after an
     * I/O error, and on a 429 or 503 after its Retry-After), but the identity the gateway signs is good for one call:
     * the service refused the second as a replay, and the client got 401, seconds late, where the service had said
     * "try again later". A service's answer goes to the client as it is; the client retries. Followed logs are read
     * with a timeout of their own ({@link FollowedLogs}).
     */
    @Bean
    ClientHttpRequestFactoryBuilderCustomizer<HttpComponentsClientHttpRequestFactoryBuilder> upstreamConnections(
            GatewayProperties properties) {
        int perService = properties.maxConnectionsPerService();
        return builder -> builder.withConnectionManagerCustomizer(manager -> manager
                        .setMaxConnPerRoute(perService).setMaxConnTotal(2 * perService))
                .withHttpClientCustomizer(HttpClientBuilder::disableAutomaticRetries)
                // what the retry covered: a pooled connection the service closed while it idled is checked before use
                .withConnectionConfigCustomizer(connection -> connection
                        .setValidateAfterInactivity(TimeValue.ofSeconds(1)))
                .withCustomizer(factory -> factory.setHttpContextFactory(
                        new FollowedLogs(properties.followReadTimeout(), factory)));
    }

    /**
     * The proxy's client (the gateway's {@code RestClient} takes the one {@link ClientHttpRequestFactory} there is):
     * Boot's, as configured, whose answers drop their connection when closed before their end
     * ({@link ProxyRequests}).
     */
    @Bean
    ClientHttpRequestFactory proxyRequests(ClientHttpRequestFactoryBuilder<?> builder, HttpClientSettings settings) {
        return new ProxyRequests(builder.build(settings));
    }

    @Bean
    InstantSource clock() {
        return InstantSource.system();
    }

    /** The gateway signs; without the secret it shares with the services it has nothing to do, so it does not start. */
    @Bean
    SignedIdentity signedIdentity(@Value("${jobs.internal-secret:${JOBS_INTERNAL_SECRET:}}") String secret, InstantSource clock) {
        SignedIdentity identities = new SignedIdentity(secret, clock);
        if (!identities.hasSecret()) {
            throw new IllegalStateException("set JOBS_INTERNAL_SECRET (jobs.internal-secret): the secret the gateway "
                    + "and the services share, at least " + SignedIdentity.MIN_SECRET_LENGTH + " characters");
        }
        return identities;
    }

    @Bean
    TenantStore tenantStore(JdbcClient jdbc, InstantSource clock) {
        return new TenantStore(jdbc, clock);
    }

    /**
     * Whether keys can be checked yet; health component {@code keyStore}, in readiness. With
     * {@code JOBS_BOOTSTRAP_ADMIN_TOKEN} the gateway installs that key itself, as job-service does: it then
     * works as soon as the gateway is ready, whichever of the two started first.
     */
    @Bean
    KeyStoreReadiness keyStore(TenantStore tenants, @Value("${jobs.bootstrap-admin-token:}") String bootstrapToken,
            InstantSource clock) {
        return new KeyStoreReadiness(tenants, bootstrapToken, clock);
    }

    /** A first try on start; a failure does not stop the start: requests and health checks try again. */
    @Bean
    ApplicationRunner keyStoreAtStart(KeyStoreReadiness keyStore) {
        return args -> keyStore.ready();
    }

    /** When each key was last used, noted at most once per {@code jobs.gateway.key-use-every} per key. */
    @Bean
    KeyUse keyUse(JdbcClient jdbc, InstantSource clock, @Value("${jobs.gateway.key-use-every:60s}") Duration every) {
        return new KeyUse(new ApiKeyStore(jdbc), clock, every);
    }

    /** Writes when keys were last used, every {@code jobs.gateway.key-use-flush-interval}, on a virtual thread; once more at stop. */
    @Bean
    SmartLifecycle keyUseWriter(KeyUse keyUse, @Value("${jobs.gateway.key-use-flush-interval:10s}") Duration interval) {
        return new SmartLifecycle() {
            private volatile Thread thread;

            @Override
            public void start() {
                thread = Thread.ofVirtual().name("key-use").start(() -> {
                    try {
                        while (true) {
                            Thread.sleep(interval);
                            keyUse.flush();
                        }
                    } catch (InterruptedException stop) {
                        keyUse.flush();
                    }
                });
            }

            @Override
            public void stop() {
                Thread t = thread;
                thread = null;
                if (t != null) {
                    t.interrupt();
                }
            }

            @Override
            public boolean isRunning() {
                return thread != null;
            }
        };
    }

    @Bean
    FilterRegistrationBean<FrontDoor> frontDoor(KeyStoreReadiness keyStore, TenantStore tenants, InstantSource clock,
            SignedIdentity identities, GatewayProperties properties, MeterRegistry meters, KeyUse keyUse) {
        GatewayProperties.Jwt jwt = properties.jwt();
        JwtCallers jwts = jwt.enabled()
                ? new JwtCallers(JwtCallers.decoder(jwt), jwt, tenants, clock, properties.keyCacheTtl())
                : null;
        FrontDoor door = new FrontDoor(keyStore, new ApiKeys(tenants::authenticate, clock, properties.keyCacheTtl(),
                properties.keyLookupsPerSecond(), keyUse::used), jwts,
                new TenantRateLimits(properties.rateLimit()), new TenantStreams(properties.maxStreamsPerTenant()), identities, properties.maxBodyBytes(), meters);
        FilterRegistrationBean<FrontDoor> registration = new FilterRegistrationBean<>(door);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }
}
