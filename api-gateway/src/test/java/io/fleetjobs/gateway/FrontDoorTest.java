package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.store.Principal;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.support.ApiPaths;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.support.SignedIdentity;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TestDatabases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The gateway on a real PostgreSQL (keys from the real store), in front of two stand-in services that
 * record what reaches them: what it refuses, and what it passes on.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FrontDoorTest {
    private static final String SECRET = "gateway-test-internal-secret";
    private static final TestDatabases.Database DB = TestDatabases.create();
    private static final Upstream JOB_SERVICE = new Upstream();
    private static final Upstream SCHEDULER = new Upstream();

    @LocalServerPort
    int port;
    @LocalManagementPort
    int managementPort;
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
        registry.add("jobs.gateway.key-cache-ttl", () -> "200ms");
        registry.add("jobs.gateway.rate-limit.tenants.throttled.requests-per-second", () -> "2");
        registry.add("jobs.gateway.rate-limit.tenants.throttled.burst", () -> "3");
    }

    @AfterAll
    static void stop() {
        JOB_SERVICE.server.stop(0);
        SCHEDULER.server.stop(0);
    }

    private Api user(String tenant, Principal.Role role) {
        var t = tenants.create(tenant, 1, null, null, null).or(() -> tenants.byName(tenant)).orElseThrow();
        return new Api(port, tenants.issueKey(t.id(), role).key());
    }

    @Test
    void noKeyOrAnUnknownKeyIs401AndNothingIsForwarded() {
        JOB_SERVICE.last.set(null);
        Api anonymous = new Api(port, null);
        var none = anonymous.get("/api/v1/jobs");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.contentType()).startsWith("application/problem+json");
        assertThat(anonymous.as("fj_unknown").get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(anonymous.as("fj_unknown").get("/api").status()).isEqualTo(401);
        assertThat(anonymous.get("/api/v1/../v1/jobs").status()).isEqualTo(401);
        assertThat(JOB_SERVICE.last.get()).isNull();
        assertThat(anonymous.get("/actuator/health").status()).isEqualTo(200);
    }

    @Test
    void thePublicPortAnswersHealthWithoutATokenAndNoOtherActuatorEndpoint() {
        Api anonymous = new Api(port, null);
        assertThat(managementPort).as("a management port of its own").isNotEqualTo(port);
        for (String path : List.of("/actuator/prometheus", "/actuator/metrics", "/actuator/info", "/actuator")) {
            assertThat(anonymous.get(path).status()).as("%s on the public port", path).isEqualTo(404);
        }
        var health = anonymous.get("/actuator/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("components").path("db").path("status").asString()).isEqualTo("UP");
        assertThat(anonymous.get("/actuator/health/liveness").status()).isEqualTo(200);
        assertThat(anonymous.get("/actuator/health/readiness").status()).isEqualTo(200);

        Api management = new Api(managementPort, null);
        var metrics = management.get("/actuator/prometheus");
        assertThat(metrics.status()).isEqualTo(200);
        assertThat(metrics.body()).contains("jvm_memory_used_bytes");
        assertThat(management.get("/actuator/health").status()).isEqualTo(200);
    }

    /**
     * A write whose client would refuse its JSON answer is refused before it is done: forwarded, the service made the
     * job and then answered 406 (a retry on that error made it twice). Reads, and any Accept that takes JSON, pass.
     */
    @Test
    void aWriteWhoseAnswerItsClientWouldRefuseIs406AndNotForwarded() {
        Api alice = user("accepting", Principal.Role.USER);
        for (String accept : List.of("application/xml", "text/csv, text/plain", "application/json;q=0, text/html")) {
            int before = JOB_SERVICE.calls.get();
            var refused = alice.post("/api/v1/jobs", "{}", Map.of("Accept", accept));
            assertThat(refused.status()).as(accept).isEqualTo(406);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.field("detail")).contains("nothing was done");
            assertThat(JOB_SERVICE.calls.get()).as("%s: not forwarded", accept).isEqualTo(before);
        }
        for (String accept : List.of("application/json", "*/*", "application/*", "application/problem+json",
                "text/html, application/*+json;q=0.5", "not a media type")) {
            int before = JOB_SERVICE.calls.get();
            alice.post("/api/v1/jobs", "{}", Map.of("Accept", accept));
            assertThat(JOB_SERVICE.calls.get()).as("%s: forwarded", accept).isEqualTo(before + 1);
        }
        int before = JOB_SERVICE.calls.get();
        try {
            HttpClient.newHttpClient().send(alice.request("GET", "/api/v1/jobs").header("Accept", "application/xml")
                    .build(), HttpResponse.BodyHandlers.discarding());
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
        assertThat(JOB_SERVICE.calls.get()).as("a read is the service's to negotiate").isEqualTo(before + 1);
    }

    @Test
    void aHeadOnALiveStreamIs405AndNotForwarded() throws Exception {
        Api alice = user("heads", Principal.Role.USER);
        for (String path : List.of("/api/v1/events?follow=true", "/api/v1/jobs/" + UUID.randomUUID() + "/events?follow=true",
                "/api/v1/jobs/" + UUID.randomUUID() + "/attempts/1/logs?follow=true")) {
            int before = JOB_SERVICE.calls.get();
            HttpResponse<Void> head = HttpClient.newHttpClient().send(alice.request("HEAD", path).HEAD().build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(head.statusCode()).as(path).isEqualTo(405);
            assertThat(head.headers().firstValue("Allow")).as(path).hasValue("GET");
            assertThat(JOB_SERVICE.calls.get()).as("%s: not forwarded", path).isEqualTo(before);
        }
        int before = JOB_SERVICE.calls.get();
        HttpClient.newHttpClient().send(alice.request("HEAD", "/api/v1/jobs").HEAD().build(), HttpResponse.BodyHandlers.discarding());
        assertThat(JOB_SERVICE.calls.get()).as("a HEAD on a listing is the service's").isEqualTo(before + 1);
    }

    /**
     * A service's 429 or 503 reaches the client as the service said it, once: the proxy's client retried an idempotent
     * call on them (Apache HttpClient's default), after the Retry-After, with the identity signed for one call, which
     * the service refused as a replay: the client got 401 for "try again later", seconds late.
     */
    @Test
    void aServicesTooManyRequestsOrUnavailableIsPassedOnOnceAndNotRetried() {
        Api alice = user("alice", Principal.Role.USER);
        for (String path : List.of("/api/v1/jobs/busy", "/api/v1/jobs/unavailable")) {
            int before = JOB_SERVICE.calls.get();
            var answer = alice.get(path);
            assertThat(answer.status()).as(path).isEqualTo(path.endsWith("busy") ? 429 : 503);
            assertThat(answer.retryAfter()).as(path).isEqualTo("1");
            assertThat(JOB_SERVICE.calls.get() - before).as("%s: calls that reached the service", path).isEqualTo(1);
        }
    }

    @Test
    void theServiceGetsTheSignedIdentityAndNeitherTheKeyNorForgedHeaders() {
        Api alice = user("alice", Principal.Role.USER);
        var tenant = tenants.byName("alice").orElseThrow();
        var forged = new SignedIdentity("a-forger-knows-another-secret", InstantSource.system())
                .sign(new CallerIdentity(tenant.id(), "alice", CallerIdentity.Role.ADMIN),
                        new SignedIdentity.Target("job-service", "POST", "/api/v1/jobs?x=1"));
        var r = alice.post("/api/v1/jobs?x=1", "{\"name\":\"n\"}",
                Map.of(SignedIdentity.HEADER, forged.value(), SignedIdentity.SIGNATURE_HEADER, forged.signature()));
        assertThat(r.status()).isEqualTo(200);
        Seen seen = JOB_SERVICE.last.get();
        assertThat(seen.path()).isEqualTo("/api/v1/jobs?x=1");
        assertThat(seen.header("Authorization")).isNull();
        assertThat(new String(seen.body(), StandardCharsets.UTF_8)).isEqualTo("{\"name\":\"n\"}");
        var verified = new SignedIdentity(SECRET, InstantSource.system())
                .verify(seen.header(SignedIdentity.HEADER), seen.header(SignedIdentity.SIGNATURE_HEADER), seen.target());
        assertThat(verified).contains(new CallerIdentity(tenant.id(), "alice", CallerIdentity.Role.USER));
    }

    @Test
    void adminPathsNeedTheAdminRoleAndMachinesGoToTheScheduler() {
        Api bob = user("bob", Principal.Role.USER);
        assertThat(bob.post("/api/v1/admin/tenants", "{\"name\":\"x\"}").status()).isEqualTo(403);
        assertThat(bob.get("/api/v1/machines").status()).isEqualTo(403);
        assertThat(bob.get("/api/v1/admin").status()).isEqualTo(403);

        Api root = user("root", Principal.Role.ADMIN);
        SCHEDULER.last.set(null);
        assertThat(root.get("/api/v1/machines").status()).isEqualTo(200);
        assertThat(SCHEDULER.last.get().path()).isEqualTo("/api/v1/machines");
        assertThat(root.post("/api/v1/admin/tenants", "{\"name\":\"x\"}").status()).isEqualTo(200);
        assertThat(JOB_SERVICE.last.get().path()).isEqualTo("/api/v1/admin/tenants");
        assertThat(root.get("/api/v1/nowhere").status()).isEqualTo(404);
    }

    @Test
    void aRevokedKeyStopsWorkingWithinTheCacheTtl() {
        var t = tenants.create("carol", 1, null, null, null).orElseThrow();
        var key = tenants.issueKey(t.id(), Principal.Role.USER);
        Api carol = new Api(port, key.key());
        assertThat(carol.get("/api/v1/jobs").status()).isEqualTo(200);
        assertThat(tenants.revokeKey(t.id(), key.id())).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> carol.get("/api/v1/jobs").status() == 401);
    }

    @Test
    void bodiesOverOneMebibyteAre413DeclaredOrChunked() {
        Api dave = user("dave", Principal.Role.USER);
        byte[] big = new byte[1024 * 1024 + 100_000];
        Arrays.fill(big, (byte) 'a');
        JOB_SERVICE.last.set(null);
        var declared = dave.post("/api/v1/jobs", new String(big, StandardCharsets.US_ASCII));
        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.contentType()).startsWith("application/problem+json");
        assertThat(dave.postStreamed("/api/v1/jobs", big).status()).isEqualTo(413);
        assertThat(JOB_SERVICE.last.get()).isNull();

        byte[] exactly = Arrays.copyOf(big, 1024 * 1024);
        assertThat(dave.postStreamed("/api/v1/jobs", exactly).status()).isEqualTo(200);
        assertThat(JOB_SERVICE.last.get().body()).hasSize(1024 * 1024);
    }

    @Test
    void aTenantOverItsRateLimitIs429WithRetryAfterThenRecovers() {
        Api throttled = user("throttled", Principal.Role.USER);
        Api other = user("unthrottled", Principal.Role.USER);
        int ok = 0;
        Api.Response refused = null;
        for (int i = 0; i < 10 && refused == null; i++) {
            var r = throttled.get("/api/v1/jobs");
            if (r.status() == 429) {
                refused = r;
            } else {
                assertThat(r.status()).isEqualTo(200);
                ok++;
            }
        }
        assertThat(refused).as("a burst over the limit is refused").isNotNull();
        assertThat(ok).isBetween(3, 6);
        assertThat(Long.parseLong(refused.retryAfter())).isBetween(1L, 2L);
        assertThat(other.get("/api/v1/jobs").status()).as("another tenant is not limited by it").isEqualTo(200);
        await().atMost(Duration.ofSeconds(5)).until(() -> throttled.get("/api/v1/jobs").status() == 200);
    }

    @Test
    void theContractAndSwaggerUiAnswerWithoutAToken() throws IOException {
        Path contract = Path.of("..", "api", "openapi.yaml");
        Api anonymous = new Api(port, null);
        JOB_SERVICE.last.set(null);

        var yaml = anonymous.get("/openapi.yaml");
        assertThat(yaml.status()).isEqualTo(200);
        assertThat(yaml.contentType()).startsWith("application/yaml");
        assertThat(yaml.body()).as("the repository's api/openapi.yaml, as it is").isEqualTo(Files.readString(contract));

        var json = anonymous.as("not-even-a-key").get("/v3/api-docs");
        assertThat(json.status()).isEqualTo(200);
        assertThat(json.contentType()).startsWith("application/json");
        assertThat(json.json()).isEqualTo(YAMLMapper.builder().build().readTree(contract.toFile()));
        assertThat(json.json().path("paths").has("/api/v1/machines")).as("the whole API, not one service's part").isTrue();
        assertThat(JOB_SERVICE.last.get()).as("the gateway answers it itself").isNull();

        var redirect = anonymous.get("/swagger-ui.html");
        assertThat(redirect.status()).isEqualTo(302);
        assertThat(redirect.location()).isEqualTo("/swagger-ui/index.html");
        var page = anonymous.get("/swagger-ui/index.html");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("swagger-ui-bundle.js", "fleetjobs-init.js");
        assertThat(anonymous.get("/swagger-ui/fleetjobs-init.js").body()).contains("SwaggerUIBundle", "../openapi.yaml");
        var bundle = anonymous.get("/webjars/swagger-ui/swagger-ui-bundle.js");
        assertThat(bundle.status()).as("the webjar, without its version in the path").isEqualTo(200);
        assertThat(bundle.body()).contains("SwaggerUIBundle");
        assertThat(anonymous.get("/webjars/swagger-ui/swagger-ui.css").status()).isEqualTo(200);
    }

    record Seen(String method, String path, Map<String, List<String>> headers, byte[] body) {
        /** The request the identity must have been signed for, as the service behind sees it. */
        SignedIdentity.Target target() {
            int q = path.indexOf('?');
            String pathOnly = q < 0 ? path : path.substring(0, q);
            return SignedIdentity.Target.of(ApiPaths.serviceFor(pathOnly), method, pathOnly,
                    q < 0 ? null : path.substring(q + 1));
        }

        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(e -> e.getValue().getFirst())
                    .findFirst().orElse(null);
        }
    }

    /** A stand-in service: answers 200 and keeps what it was sent. */
    static final class Upstream {
        final HttpServer server;
        final AtomicReference<Seen> last = new AtomicReference<>();
        final AtomicInteger calls = new AtomicInteger();

        Upstream() {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server.createContext("/", exchange -> {
                byte[] body = exchange.getRequestBody().readAllBytes();
                last.set(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().toString(), Map.copyOf(exchange.getRequestHeaders()), body));
                calls.incrementAndGet();
                String path = exchange.getRequestURI().getPath();
                if (path.endsWith("/busy") || path.endsWith("/unavailable")) {
                    // a service that cannot answer now, as job-service says it: 429 or 503, with Retry-After
                    exchange.getResponseHeaders().add("Retry-After", "1");
                    exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
                    byte[] problem = "{\"status\":503}".getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(path.endsWith("/busy") ? 429 : 503, problem.length);
                    exchange.getResponseBody().write(problem);
                    exchange.close();
                    return;
                }
                byte[] answer = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
                exchange.close();
            });
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }
    }
}
