package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.migrations.Migrate;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.SettableClock;
import io.fleetjobs.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The gateway started before the platform behind it is: a database without the schema yet, no job-service
 * having installed the bootstrap admin key. Every API call is then 503 with Retry-After, never 401, and
 * readiness says so; once the schema is there the gateway installs the key itself and lets it in. Time moves
 * only when the test says (the gateway's clock is a {@link SettableClock}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StartingGatewayTest {
    private static final String SECRET = "gateway-starting-test-internal-secret";
    private static final String TOKEN = "fj_bootstrap-starting-test";
    private static final TestDatabases.Database DB = KeyStoreReadinessTest.withoutSchema();
    private static final FrontDoorTest.Upstream JOB_SERVICE = new FrontDoorTest.Upstream();
    private static final FrontDoorTest.Upstream SCHEDULER = new FrontDoorTest.Upstream();

    @LocalServerPort
    int port;
    @Autowired
    TenantStore tenants;
    @Autowired
    SettableClock clock;

    @TestConfiguration(proxyBeanMethods = false)
    static class Clock {
        @Bean
        @Primary
        SettableClock settableClock() {
            return SettableClock.atNow();
        }
    }

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("jobs.internal-secret", () -> SECRET);
        registry.add("jobs.bootstrap-admin-token", () -> TOKEN);
        registry.add("jobs.gateway.job-service-url", () -> "http://127.0.0.1:" + JOB_SERVICE.port());
        registry.add("jobs.gateway.scheduler-url", () -> "http://127.0.0.1:" + SCHEDULER.port());
    }

    @AfterAll
    static void stop() {
        JOB_SERVICE.server.stop(0);
        SCHEDULER.server.stop(0);
    }

    private static void assertStarting(Api.Response r) {
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.retryAfter()).isEqualTo("2");
        assertThat(r.contentType()).startsWith("application/problem+json");
        assertThat(r.field("detail")).contains("starting", "cannot be checked yet");
    }

    @Test
    void whileTheKeyStoreIsNotReadyApiCallsAre503ThenTheBootstrapTokenWorksWithoutJobService() {
        Api admin = new Api(port, TOKEN);
        Api anonymous = new Api(port, null);
        JOB_SERVICE.last.set(null);

        assertStarting(admin.get("/api/v1/jobs"));
        assertStarting(admin.as("fj_unknown").get("/api/v1/jobs"));
        assertStarting(anonymous.get("/api/v1/admin/tenants"));
        assertThat(JOB_SERVICE.last.get()).isNull();
        var readiness = anonymous.get("/actuator/health/readiness");
        assertThat(readiness.status()).isEqualTo(503);
        assertThat(readiness.json().path("status").asString()).isEqualTo("OUT_OF_SERVICE");
        assertThat(readiness.json().path("components").path("keyStore").path("status").asString()).isEqualTo("OUT_OF_SERVICE");
        assertThat(anonymous.get("/actuator/health/liveness").status()).as("alive, only not ready").isEqualTo(200);
        assertThat(anonymous.get("/openapi.yaml").status()).as("public paths need no key store").isEqualTo(200);

        // the schema is there, the bootstrap key is not (where the gateway used to say 401): it has not tried again,
        // its last try is not a second old
        try (HikariDataSource ds = DB.dataSource(2)) { // Flyway takes two connections
            Migrate.apply(ds);
        }
        assertStarting(admin.get("/api/v1/jobs"));
        assertStarting(admin.as("fj_unknown").get("/api/v1/jobs"));
        assertThat(tenants.authenticate(TOKEN)).isEmpty();
        clock.advance(KeyStoreReadiness.RETRY_EVERY);

        assertThat(admin.get("/api/v1/jobs").status()).isEqualTo(200);
        assertThat(JOB_SERVICE.last.get().path()).isEqualTo("/api/v1/jobs");
        assertThat(tenants.authenticate(TOKEN)).as("the gateway installed it").isPresent();
        var unknown = admin.as("fj_unknown").get("/api/v1/jobs");
        assertThat(unknown.status()).isEqualTo(401);
        assertThat(unknown.contentType()).startsWith("application/problem+json");
        assertThat(anonymous.get("/actuator/health/readiness").status()).isEqualTo(200);
        assertThat(anonymous.get("/actuator/health/readiness").json().path("components").path("keyStore")
                .path("status").asString()).isEqualTo("UP");
    }
}
