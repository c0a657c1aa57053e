package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.support.SignedIdentity;
import io.fleetjobs.testsupport.Api;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The front door, through the real gateway in front of the real services: who gets in, who sees
 * what, and that the services' own ports grant nothing.
 */
class GatewaySecurityTest {
    private static Platform platform;
    private static Api admin;
    private static Api anonymous;

    private static final Issuer ISSUER = new Issuer();

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of(), Map.of(
                "jobs.gateway.key-cache-ttl", "300ms",
                "jobs.gateway.rate-limit.tenants.throttled.requests-per-second", "2",
                "jobs.gateway.rate-limit.tenants.throttled.burst", "3",
                "jobs.gateway.jwt.issuer-uri", Issuer.ISSUER,
                "jobs.gateway.jwt.jwk-set-uri", ISSUER.jwkSetUri(),
                "jobs.gateway.jwt.audience", "fleetjobs"));
        admin = platform.admin;
        anonymous = admin.as(null);
    }

    @AfterAll
    static void stop() {
        platform.close();
        ISSUER.server.stop(0);
    }

    private static String spec(String name) {
        return """
                {"name": "%s", "resources": {"cpu": 0.5, "memoryMb": 64}, "execution": {"command": ["true"]}}""".formatted(name);
    }

    @Test
    void theActuatorBesidesHealthIsOnlyOnTheManagementPorts() {
        // the gateway's public port: health (the contract, probes), nothing else of the actuator
        for (String path : List.of("/actuator/prometheus", "/actuator/metrics", "/actuator/info")) {
            assertThat(anonymous.get(path).status()).as("%s on the gateway's public port", path).isEqualTo(404);
            assertThat(admin.get(path).status()).as("%s with the admin token", path).isEqualTo(404);
        }
        assertThat(anonymous.get("/actuator/health").status()).isEqualTo(200);
        assertThat(anonymous.get("/actuator/health/readiness").status()).isEqualTo(200);
        for (int port : new int[] {platform.jobServicePort(), platform.schedulerPort(), platform.reconcilerPort()}) {
            Api direct = new Api(port, null);
            assertThat(direct.get("/actuator/prometheus").status()).as("prometheus on main port %d", port).isEqualTo(404);
            assertThat(direct.get("/actuator/health/liveness").status()).as("liveness on main port %d", port).isEqualTo(200);
        }
        for (int port : new int[] {platform.gatewayManagementPort(), platform.jobServiceManagementPort(),
                platform.schedulerManagementPort(), platform.reconcilerManagementPort()}) {
            var metrics = new Api(port, null).get("/actuator/prometheus");
            assertThat(metrics.status()).as("prometheus on management port %d", port).isEqualTo(200);
            assertThat(metrics.body()).contains("jvm_memory_used_bytes");
        }
    }

    /**
     * A query whose escapes cannot be decoded fails in the service behind the gateway, outside the API's handlers:
     * Spring Boot's own error body answered it ({@code timestamp}, {@code error}, {@code path}), as it answered every
     * exception no handler took. A path with {@code %00} or an escape that cannot be decoded is refused by Tomcat
     * itself, before any servlet: its HTML error page answered, at the gateway and at the agents' API. The contract's
     * errors are problem+json, these too.
     */
    @Test
    void aRequestThatFailsOutsideTheHandlersIsAnsweredAsProblemJsonToo() throws Exception {
        for (String target : List.of("/api/v1/jobs?pageToken=%%%", "/api/v1/jobs/%00", "/api/v1/jobs/%zz")) {
            assertProblemJson400(platform.gatewayPort(), target);
        }
        assertProblemJson400(platform.schedulerPort(), "/agent/v1/%00join");
    }

    private static void assertProblemJson400(int port, String target) throws Exception {
        // java.net.URI refuses such a target, so it goes as raw HTTP
        try (var socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer " + Platform.ADMIN_TOKEN + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).as(target).startsWith("HTTP/1.1 400");
            assertThat(answer.toLowerCase(Locale.ROOT)).as(target)
                    .contains("content-type: application/problem+json");
            assertThat(answer).as(target).contains("\"status\":400").doesNotContain("\"timestamp\"")
                    .doesNotContain("<html");
        }
    }

    @Test
    void noTokenABadKeyAndARevokedKeyAre401() {
        assertThat(anonymous.get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(anonymous.post("/api/v1/jobs", spec("x")).status()).isEqualTo(401);
        assertThat(admin.as("fj_not-a-key").get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(admin.as("").get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(anonymous.get("/actuator/health").status()).isEqualTo(200);

        admin.post("/api/v1/admin/tenants", "{\"name\":\"revoked\"}");
        var issued = admin.post("/api/v1/admin/tenants/revoked/api-keys", "{}");
        Api revoked = admin.as(issued.field("key"));
        assertThat(revoked.get("/api/v1/jobs").status()).isEqualTo(200);
        assertThat(admin.delete("/api/v1/admin/tenants/revoked/api-keys/" + issued.field("id")).status()).isEqualTo(204);
        await().atMost(Duration.ofSeconds(10)).until(() -> revoked.get("/api/v1/jobs").status() == 401);
    }

    @Test
    void aUserOnAdminEndpointsIs403() {
        Api user = platform.tenant("plain");
        assertThat(user.post("/api/v1/admin/tenants", "{\"name\":\"mallory\"}").status()).isEqualTo(403);
        assertThat(user.post("/api/v1/admin/tenants/plain/api-keys", "{}").status()).isEqualTo(403);
        assertThat(user.delete("/api/v1/admin/tenants/plain/api-keys/" + UUID.randomUUID()).status()).isEqualTo(403);
        assertThat(user.get("/api/v1/machines").status()).isEqualTo(403);
        var machines = admin.get("/api/v1/machines");
        assertThat(machines.status()).isEqualTo(200);
        assertThat(machines.json().get("items").isArray()).isTrue();
    }

    @Test
    void anotherTenantsJobIs404OnEveryVerb() {
        Api owner = platform.tenant("owner");
        Api stranger = platform.tenant("stranger");
        String id = owner.post("/api/v1/jobs", spec("private")).field("id");
        for (String path : List.of("/api/v1/jobs/" + id, "/api/v1/jobs/" + id + "/attempts", "/api/v1/jobs/" + id + "/events",
                "/api/v1/jobs/" + id + "/attempts/1/logs")) {
            assertThat(stranger.get(path).status()).as(path).isEqualTo(404);
        }
        assertThat(stranger.post("/api/v1/jobs/" + id + "/cancel", null).status()).isEqualTo(404);
        assertThat(stranger.get("/api/v1/jobs").json().get("items").size()).isZero();
        assertThat(owner.get("/api/v1/jobs/" + id).field("cancelRequested")).isEqualTo("false");
        assertThat(owner.get("/api/v1/jobs/" + id).field("state")).isNotEqualTo("CANCELED");
    }

    /**
     * An identity header seen once (on the wire between gateway and service, in a log) buys nothing: not the same
     * call again, not another path, not another service. Signed here as the gateway signs, with the real secret.
     */
    @Test
    void aReplayedIdentityIsRefusedForTheSameCallAnotherPathAndAnotherService() {
        Api tenant = platform.tenant("replayed");
        String id = tenant.post("/api/v1/jobs", spec("replayed")).field("id");
        SignedIdentity signer = new SignedIdentity(Platform.INTERNAL_SECRET, InstantSource.system());
        CallerIdentity admin = new CallerIdentity(UUID.randomUUID(), "replayed", CallerIdentity.Role.ADMIN);
        SignedIdentity.Signed seen = signer.sign(admin, new SignedIdentity.Target("job-service", "GET", "/api/v1/jobs"));
        Map<String, String> headers = Map.of(SignedIdentity.HEADER, seen.value(), SignedIdentity.SIGNATURE_HEADER,
                seen.signature());
        Api jobService = new Api(platform.jobServicePort(), null).withHeaders(headers);
        assertThat(jobService.get("/api/v1/jobs").status()).as("the call it was made for, once").isEqualTo(200);
        assertThat(jobService.get("/api/v1/jobs").status()).as("the same call again").isEqualTo(401);

        SignedIdentity.Signed fresh = signer.sign(admin, new SignedIdentity.Target("job-service", "GET", "/api/v1/jobs"));
        Api other = new Api(platform.jobServicePort(), null).withHeaders(Map.of(SignedIdentity.HEADER, fresh.value(),
                SignedIdentity.SIGNATURE_HEADER, fresh.signature()));
        assertThat(other.get("/api/v1/jobs/" + id).status()).as("another path").isEqualTo(401);
        assertThat(other.post("/api/v1/admin/tenants", "{\"name\":\"minted\"}").status()).as("another method").isEqualTo(401);
        assertThat(new Api(platform.schedulerPort(), null).withHeaders(Map.of(SignedIdentity.HEADER, fresh.value(),
                SignedIdentity.SIGNATURE_HEADER, fresh.signature())).get("/api/v1/jobs").status())
                .as("another service").isEqualTo(401);
        assertThat(platform.admin.post("/api/v1/admin/tenants", "{\"name\":\"minted\"}").status())
                .as("the replayed admin identity created nothing").isEqualTo(201);
    }

    @Test
    void theServicesPortsGrantNothingWithForgedHeadersOrRawKeys() {
        Api tenant = platform.tenant("direct");
        String id = tenant.post("/api/v1/jobs", spec("direct")).field("id");
        long expires = Instant.now().plusSeconds(30).getEpochSecond();
        UUID someone = UUID.randomUUID();
        Map<String, String> forged = Map.of(SignedIdentity.HEADER, someone + ";direct;ADMIN;" + expires,
                SignedIdentity.SIGNATURE_HEADER, "bm90LWEtc2lnbmF0dXJl");
        var otherSecret = new SignedIdentity("a-secret-nobody-configured", InstantSource.system())
                .sign(new CallerIdentity(someone, "admin", CallerIdentity.Role.ADMIN),
                        new SignedIdentity.Target("job-service", "GET", "/api/v1/jobs"));
        Map<String, String> wrongKey = Map.of(SignedIdentity.HEADER, otherSecret.value(),
                SignedIdentity.SIGNATURE_HEADER, otherSecret.signature());

        for (int port : new int[] {platform.jobServicePort(), platform.schedulerPort()}) {
            Api direct = new Api(port, null);
            for (Api caller : List.of(direct, direct.withHeaders(forged), direct.withHeaders(wrongKey), direct.as(Platform.ADMIN_TOKEN))) {
                assertThat(caller.get("/api/v1/jobs").status()).as("port %d", port).isEqualTo(401);
                assertThat(caller.get("/api/v1/jobs/" + id).status()).isEqualTo(401);
                assertThat(caller.get("/api/v1/machines").status()).isEqualTo(401);
                assertThat(caller.post("/api/v1/admin/tenants", "{\"name\":\"forged\"}").status()).isEqualTo(401);
            }
            assertThat(direct.get("/actuator/health").status()).isEqualTo(200);
        }
        assertThat(admin.post("/api/v1/admin/tenants", "{\"name\":\"forged\"}").status()).as("nothing was created").isEqualTo(201);
    }

    @Test
    void anAgentCredentialActsOnlyForItsOwnMachine() {
        Api join = new Api(platform.schedulerPort(), Platform.JOIN_TOKEN);
        String body = """
                {"machineId": "%s", "region": "sec", "labels": {}, "cpuMillis": 1000, "memoryMb": 512, "gpuCount": 0, "gpuType": null}""";
        JsonNode a = join.post("/agent/v1/join", body.formatted("sec-a")).json();
        JsonNode b = join.post("/agent/v1/join", body.formatted("sec-b")).json();
        Api asA = join.as(a.get("credential").asString());
        String heartbeat = """
                {"machineId": "%s", "incarnation": %d, "attempts": [], "waitMs": 0}""";
        assertThat(asA.post("/agent/v1/heartbeat", heartbeat.formatted("sec-a", a.get("incarnation").asLong())).status()).isEqualTo(200);
        assertThat(asA.post("/agent/v1/heartbeat", heartbeat.formatted("sec-b", b.get("incarnation").asLong())).status())
                .isEqualTo(403);
        assertThat(join.as("wrong").post("/agent/v1/join", body.formatted("sec-c")).status()).isEqualTo(401);
        assertThat(join.as(null).post("/agent/v1/heartbeat", heartbeat.formatted("sec-a", 1)).status()).isEqualTo(401);
        // a stranger is refused before what it sent is read: a body it sent wrong answered 400, telling it how to
        // shape one, where its missing credential is the answer
        for (String path : List.of("/agent/v1/join", "/agent/v1/heartbeat", "/agent/v1/logs")) {
            for (String junk : Arrays.asList("{}", "[", null)) {
                assertThat(join.as("wrong").post(path, junk).status()).as("%s %s", path, junk).isEqualTo(401);
                assertThat(join.as(null).post(path, junk).status()).as("%s %s", path, junk).isEqualTo(401);
            }
        }
        var badJoin = join.post("/agent/v1/join", "{\"machineId\": \"sec-d\", \"cpuMillis\": \"lots\"}");
        assertThat(badJoin.status()).isEqualTo(400);
        assertThat(badJoin.json().get("detail").asString()).contains("cpuMillis");
        var badBeat = asA.post("/agent/v1/heartbeat", "{\"machineId\": \"sec-a\", \"incarnation\": []}");
        assertThat(badBeat.status()).isEqualTo(400);
        assertThat(badBeat.json().get("detail").asString()).contains("incarnation");
        // the agent API is not public: the gateway has no route to it
        assertThat(admin.as(a.get("credential").asString()).post("/agent/v1/heartbeat", heartbeat.formatted("sec-a", 1)).status())
                .isEqualTo(404);
    }

    @Test
    void bodiesOverOneMebibyteAre413() {
        Api user = platform.tenant("bulky");
        byte[] big = new byte[1024 * 1024 + 200_000];
        Arrays.fill(big, (byte) ' ');
        assertThat(user.post("/api/v1/jobs", new String(big, StandardCharsets.US_ASCII)).status()).isEqualTo(413);
        assertThat(user.postStreamed("/api/v1/jobs", big).status()).isEqualTo(413);
        // a spec just under the limit, padded with whitespace and streamed: accepted
        byte[] padded = Arrays.copyOf(spec("padded").getBytes(StandardCharsets.US_ASCII), 1024 * 1024);
        Arrays.fill(padded, spec("padded").length(), padded.length, (byte) ' ');
        assertThat(user.postStreamed("/api/v1/jobs", padded).status()).isEqualTo(201);
    }

    @Test
    void aBurstOverTheRateLimitIs429WithRetryAfterThenRecovers() {
        Api throttled = platform.tenant("throttled");
        Api.Response refused = null;
        for (int i = 0; i < 20 && refused == null; i++) {
            var r = throttled.get("/api/v1/jobs");
            if (r.status() == 429) {
                refused = r;
            } else {
                assertThat(r.status()).isEqualTo(200);
            }
        }
        assertThat(refused).as("a burst over the limit is refused").isNotNull();
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(Long.parseLong(refused.retryAfter())).isPositive();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(250))
                .until(() -> throttled.get("/api/v1/jobs").status() == 200);
    }

    @Test
    void sqlLookingAndUnicodeValuesAreStoredAndReturnedLiterally() {
        Api user = platform.tenant("literal");
        String sql = "x'); drop table jobs; --";
        String unicode = "Grüße 日本語 🚀 \u202Eevil";
        String name = "x--drop.table_jobs-1";
        String body = """
                {"name": "%s", "resources": {"cpu": 0.5, "memoryMb": 64},
                 "placement": {"labels": {"pool": %s}},
                 "execution": {"command": ["sh", "-c", "echo %s"], "env": {"SQL": %s, "TEXT": %s}},
                 "labels": {"team": %s, "note": %s}}""".formatted(name, json(unicode), "hi", json(sql), json(unicode),
                json(unicode), json(sql));
        var created = user.post("/api/v1/jobs", body);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode job = user.get("/api/v1/jobs/" + created.field("id")).json();
        assertThat(job.get("name").asString()).isEqualTo(name);
        assertThat(job.get("placement").get("labels").get("pool").asString()).isEqualTo(unicode);
        assertThat(job.get("execution").get("env").get("SQL").asString()).isEqualTo(sql);
        assertThat(job.get("execution").get("env").get("TEXT").asString()).isEqualTo(unicode);
        assertThat(job.get("labels").get("team").asString()).isEqualTo(unicode);
        assertThat(job.get("labels").get("note").asString()).isEqualTo(sql);
        assertThat(user.get("/api/v1/jobs").json().get("items").size()).isEqualTo(1);
        assertThat(admin.get("/api/v1/machines").status()).as("the tables are all still there").isEqualTo(200);
        assertThat(user.post("/api/v1/jobs", spec("bad'name")).status()).isEqualTo(400);
    }

    @Test
    void aJwtActsForTheTenantItNamesBesideApiKeys() {
        assertThat(admin.post("/api/v1/admin/tenants", "{\"name\":\"jwt-one\"}").status()).isEqualTo(201);
        assertThat(admin.post("/api/v1/admin/tenants", "{\"name\":\"jwt-two\"}").status()).isEqualTo(201);
        long now = Instant.now().getEpochSecond();
        Api one = admin.as(ISSUER.token(claims("jwt-one", "user", now + 300, "fleetjobs")));
        Api two = admin.as(ISSUER.token(claims("jwt-two", "user", now + 300, "fleetjobs")));

        var created = one.post("/api/v1/jobs", spec("by-jwt"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.field("tenant")).isEqualTo("jwt-one");
        String id = created.field("id");
        assertThat(one.get("/api/v1/jobs").json().get("items")).extracting(j -> j.get("id").asString()).containsExactly(id);
        assertThat(two.get("/api/v1/jobs/" + id).status()).as("another tenant's job").isEqualTo(404);
        assertThat(two.get("/api/v1/jobs").json().get("items").size()).isZero();

        assertThat(one.get("/api/v1/machines").status()).as("a user").isEqualTo(403);
        assertThat(admin.as(ISSUER.token(claims("jwt-one", "admin", now + 300, "fleetjobs"))).get("/api/v1/machines").status())
                .isEqualTo(200);
        for (String bad : List.of(ISSUER.token(claims("jwt-one", "user", now - 600, "fleetjobs")),
                ISSUER.token(claims("jwt-one", "user", now + 300, "another-audience")),
                ISSUER.token(claims("jwt-nobody", "user", now + 300, "fleetjobs")))) {
            var refused = admin.as(bad).get("/api/v1/jobs");
            assertThat(refused.status()).as(refused.body()).isEqualTo(401);
            assertThat(refused.contentType()).startsWith("application/problem+json");
        }
        assertThat(platform.tenant("jwt-keys").get("/api/v1/jobs").status()).as("API keys still").isEqualTo(200);
    }

    private static String claims(String tenant, String role, long expires, String audience) {
        return """
                {"iss":"%s","sub":"someone","aud":"%s","tenant":"%s","roles":["%s"],"iat":%d,"exp":%d}"""
                .formatted(Issuer.ISSUER, audience, tenant, role, expires - 900, expires);
    }

    @Test
    void theContractAndSwaggerUiAnswerThroughTheGatewayWithoutAToken() throws Exception {
        var yaml = anonymous.get("/openapi.yaml");
        assertThat(yaml.status()).isEqualTo(200);
        assertThat(yaml.body()).isEqualTo(Files.readString(Path.of("..", "api", "openapi.yaml")));
        var json = anonymous.get("/v3/api-docs");
        assertThat(json.status()).isEqualTo(200);
        assertThat(json.json().get("paths").has("/api/v1/jobs/{id}/events")).isTrue();
        assertThat(json.json().get("paths").has("/api/v1/machines")).isTrue();
        assertThat(anonymous.get("/swagger-ui.html").location()).isEqualTo("/swagger-ui/index.html");
        assertThat(anonymous.get("/swagger-ui/index.html").body()).contains("swagger-ui-bundle.js");
        assertThat(anonymous.get("/webjars/swagger-ui/swagger-ui-bundle.js").status()).isEqualTo(200);
    }

    /**
     * A token issuer with the JDK alone (this module does not have Nimbus): an RSA key, its JWKS served on a local
     * port, RS256 tokens.
     */
    static final class Issuer {
        static final String ISSUER = "https://issuer.fleetjobs.test";
        final KeyPair keys;
        final HttpServer server;

        Issuer() {
            try {
                var generator = KeyPairGenerator.getInstance("RSA");
                generator.initialize(2048);
                keys = generator.generateKeyPair();
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (GeneralSecurityException | IOException e) {
                throw new IllegalStateException(e);
            }
            var publicKey = (RSAPublicKey) keys.getPublic();
            byte[] jwks = ("{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"k1\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\""
                    + b64(unsigned(publicKey.getModulus())) + "\",\"e\":\"" + b64(unsigned(publicKey.getPublicExponent()))
                    + "\"}]}").getBytes(StandardCharsets.UTF_8);
            server.createContext("/jwks", exchange -> {
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, jwks.length);
                exchange.getResponseBody().write(jwks);
                exchange.close();
            });
            server.start();
        }

        String jwkSetUri() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks";
        }

        String token(String claims) {
            String signingInput = b64("{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"k1\"}".getBytes(StandardCharsets.UTF_8))
                    + "." + b64(claims.strip().getBytes(StandardCharsets.UTF_8));
            try {
                var signature = Signature.getInstance("SHA256withRSA");
                signature.initSign(keys.getPrivate());
                signature.update(signingInput.getBytes(StandardCharsets.US_ASCII));
                return signingInput + "." + b64(signature.sign());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }

        private static byte[] unsigned(BigInteger n) {
            byte[] bytes = n.toByteArray();
            return bytes[0] == 0 ? Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
        }

        private static String b64(byte[] bytes) {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        }
    }

    private static String json(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
