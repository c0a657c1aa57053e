package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.store.Principal;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.support.SignedIdentity;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The gateway with an issuer configured ({@code jobs.gateway.jwt.issuer-uri}, keys found through its discovery
 * document) on a real PostgreSQL, in front of stand-in services: which JWTs get in, as whom, and that API keys
 * keep working beside them.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class JwtFrontDoorTest {
    private static final String SECRET = "gateway-jwt-test-internal-secret";
    private static final TestDatabases.Database DB = TestDatabases.create();
    private static final FrontDoorTest.Upstream JOB_SERVICE = new FrontDoorTest.Upstream();
    private static final FrontDoorTest.Upstream SCHEDULER = new FrontDoorTest.Upstream();
    private static final TestIssuer ISSUER = new TestIssuer();

    @LocalServerPort
    int port;
    @Autowired
    TenantStore tenants;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("jobs.internal-secret", () -> SECRET);
        registry.add("jobs.gateway.job-service-url", () -> "http://127.0.0.1:" + JOB_SERVICE.port());
        registry.add("jobs.gateway.scheduler-url", () -> "http://127.0.0.1:" + SCHEDULER.port());
        registry.add("jobs.gateway.jwt.issuer-uri", ISSUER::issuer);
        registry.add("jobs.gateway.jwt.audience", () -> TestIssuer.AUDIENCE);
    }

    @AfterAll
    static void stop() {
        JOB_SERVICE.server.stop(0);
        SCHEDULER.server.stop(0);
        ISSUER.close();
    }

    private Api bearer(String token) {
        return new Api(port, token);
    }

    private UUID tenant(String name) {
        return tenants.create(name, 1, null, null, null).or(() -> tenants.byName(name)).orElseThrow().id();
    }

    private static CallerIdentity forwardedIdentity(FrontDoorTest.Upstream service) {
        FrontDoorTest.Seen seen = service.last.get();
        assertThat(seen).as("the request reached the service").isNotNull();
        assertThat(seen.header("Authorization")).as("the token stays at the gateway").isNull();
        return new SignedIdentity(SECRET, InstantSource.system())
                .verify(seen.header(SignedIdentity.HEADER), seen.header(SignedIdentity.SIGNATURE_HEADER), seen.target())
                .orElseThrow();
    }

    @Test
    void aValidTokenActsForTheTenantItNamesAsAUser() {
        var id = tenant("jwt-alice");
        JOB_SERVICE.last.set(null);
        var r = bearer(ISSUER.token("jwt-alice", "user")).get("/api/v1/jobs?limit=5");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(JOB_SERVICE.last.get().path()).isEqualTo("/api/v1/jobs?limit=5");
        assertThat(forwardedIdentity(JOB_SERVICE)).isEqualTo(new CallerIdentity(id, "jwt-alice", CallerIdentity.Role.USER));
    }

    @Test
    void theAdminRoleOpensAdminPathsAndAUserGets403() {
        var id = tenant("jwt-ops");
        var user = bearer(ISSUER.token("jwt-ops", "user", "reader"));
        var forbidden = user.get("/api/v1/machines");
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(forbidden.contentType()).startsWith("application/problem+json");
        assertThat(user.post("/api/v1/admin/tenants", "{\"name\":\"x\"}").status()).isEqualTo(403);

        SCHEDULER.last.set(null);
        assertThat(bearer(ISSUER.token("jwt-ops", "user", "admin")).get("/api/v1/machines").status()).isEqualTo(200);
        assertThat(forwardedIdentity(SCHEDULER)).isEqualTo(new CallerIdentity(id, "jwt-ops", CallerIdentity.Role.ADMIN));
    }

    @Test
    void badTokensAre401ProblemsAndReachNoService() {
        tenant("jwt-bob");
        Instant now = Instant.now();
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("expired", ISSUER.token("jwt-bob", c -> c.issueTime(Date.from(now.minus(Duration.ofHours(1))))
                .expirationTime(Date.from(now.minus(Duration.ofMinutes(10))))));
        bad.put("without expiry", ISSUER.token("jwt-bob", c -> c.expirationTime(null)));
        bad.put("another issuer", ISSUER.token("jwt-bob", c -> c.issuer("https://issuer.example")));
        bad.put("another audience", ISSUER.token("jwt-bob", c -> c.audience("someone-else")));
        bad.put("a bad signature", ISSUER.signedByImpostor("jwt-bob"));
        bad.put("no tenant claim", ISSUER.token(null, "user"));
        bad.put("an unknown tenant", ISSUER.token("jwt-nobody", "user"));
        bad.put("a tampered payload", tamper(ISSUER.token("jwt-bob", "user")));

        JOB_SERVICE.last.set(null);
        bad.forEach((what, token) -> {
            var r = bearer(token).get("/api/v1/jobs");
            assertThat(r.status()).as(what + ": " + r.body()).isEqualTo(401);
            assertThat(r.contentType()).as(what).startsWith("application/problem+json");
            assertThat(r.json().path("detail").asString()).as(what).startsWith("invalid bearer token: ");
        });
        assertThat(JOB_SERVICE.last.get()).isNull();
        assertThat(bearer(bad.get("expired")).get("/api/v1/jobs").json().path("detail").asString()).contains("expired");
        assertThat(bearer(bad.get("no tenant claim")).get("/api/v1/jobs").json().path("detail").asString()).contains("tenant");
    }

    @Test
    void apiKeysKeepWorkingBesideTokens() {
        var id = tenant("jwt-carol");
        var key = tenants.issueKey(id, Principal.Role.USER).key();
        JOB_SERVICE.last.set(null);
        assertThat(bearer(key).get("/api/v1/jobs").status()).isEqualTo(200);
        assertThat(forwardedIdentity(JOB_SERVICE)).isEqualTo(new CallerIdentity(id, "jwt-carol", CallerIdentity.Role.USER));
        assertThat(bearer("fj_not-a-key").get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(bearer(null).get("/api/v1/jobs").status()).isEqualTo(401);
    }

    /** The same header and signature over a payload naming another tenant. */
    private static String tamper(String token) {
        String[] parts = token.split("\\.");
        String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("jwt-bob", "jwt-eve");
        return parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
    }
}
