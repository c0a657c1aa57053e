package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.support.SignedIdentity;
import io.fleetjobs.testsupport.Api;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
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

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of(), Map.of(
                "jobs.gateway.key-cache-ttl", "300ms",
                "jobs.gateway.rate-limit.tenants.throttled.requests-per-second", "2",
                "jobs.gateway.rate-limit.tenants.throttled.burst", "3"));
        admin = platform.admin;
        anonymous = admin.as(null);
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    private static String spec(String name) {
        return """
                {"name": "%s", "resources": {"cpu": 0.5, "memoryMb": 64}, "execution": {"command": ["true"]}}""".formatted(name);
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

    @Test
    void theServicesPortsGrantNothingWithForgedHeadersOrRawKeys() {
        Api tenant = platform.tenant("direct");
        String id = tenant.post("/api/v1/jobs", spec("direct")).field("id");
        long expires = Instant.now().plusSeconds(30).getEpochSecond();
        UUID someone = UUID.randomUUID();
        Map<String, String> forged = Map.of(SignedIdentity.HEADER, someone + ";direct;ADMIN;" + expires,
                SignedIdentity.SIGNATURE_HEADER, "bm90LWEtc2lnbmF0dXJl");
        var otherSecret = new SignedIdentity("a-secret-nobody-configured", InstantSource.system())
                .sign(new CallerIdentity(someone, "admin", CallerIdentity.Role.ADMIN));
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
