package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.model.Ids;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.scheduler.service.agent.AgentProperties;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Json;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.Submission;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.store.Transition;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TestDatabases;
import io.fleetjobs.testsupport.TestKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/** The service as it runs: a job's QUEUED event wakes the loop, long before its safety-net interval. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class SchedulerServiceTest {
    private static final TestDatabases.Database DB = TestDatabases.create();
    private static final TestKafka KAFKA = new TestKafka(JobEvent.TOPIC).start();
    private static final String SECRET = "scheduler-test-internal-secret";
    private static final String JOIN_TOKEN = "scheduler-test-join-token";

    @LocalServerPort
    int port;
    @LocalManagementPort
    int managementPort;
    @Autowired
    JobStore jobs;
    @Autowired
    MachineStore machines;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    KafkaTemplate<String, String> kafka;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("spring.kafka.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("jobs.scheduler.interval", () -> "10m");
        registry.add("jobs.internal-secret", () -> SECRET);
        registry.add("jobs.agent.join-token", () -> JOIN_TOKEN);
    }

    /** Settings under which a silent machine's jobs could run twice at once: the service does not start. */
    @Test
    void itRefusesToStartWhenTheLostTtlDoesNotOutlastTheFence() {
        var app = new SpringApplicationBuilder(SchedulerApplication.class);
        Assertions.assertThatThrownBy(() -> app.run("--server.port=0",
                        "--spring.datasource.url=" + DB.url(), "--spring.datasource.username=" + DB.user(),
                        "--spring.datasource.password=" + DB.password(), "--spring.kafka.bootstrap-servers=" + KAFKA.bootstrapServers(),
                        "--jobs.internal-secret=" + SECRET, "--jobs.agent.lease-ttl=10s", "--jobs.agent.kill-grace=10s"))
                .hasStackTraceContaining("jobs.reconciler.lost-after (PT15S) must be longer than jobs.agent.lease-ttl (PT10S)"
                        + " + jobs.agent.kill-grace (PT10S) + jobs.agent.max-wait (PT2S) + jobs.agent.clock-skew-margin (PT1S)");
    }

    @Test
    void aQueuedEventWakesTheLoopAndTheJobIsPlaced() throws Exception {
        machines.register("m-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        var tenant = new TenantStore(jdbc, jobs.clock()).create("t", 1, null, null, null).orElseThrow().id();
        JobRecord submitted = ((Submission.Accepted) jobs.submit(tenant, Fleet.spec("woken", 1, 256, 0, null, null), null)).job();
        JobRecord queued = jobs.transition(submitted, Transition.admit()).orElseThrow();
        JobEvent event = new JobEvent(Ids.newId(), JobEvent.SCHEMA_VERSION, JobEventType.STATE_CHANGED, queued.id(), tenant,
                queued.version(), queued.updatedAt(), JobState.SUBMITTED, JobState.QUEUED, "admitted", Map.of());

        // the listener joins its group from the latest offset: send until the loop has heard one
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
            kafka.send(JobEvent.TOPIC, queued.id().toString(), Json.write(event));
            return jobs.get(queued.id()).orElseThrow().state() == JobState.SCHEDULED;
        });
        assertThat(jobs.get(queued.id()).orElseThrow().machineId()).isEqualTo("m-1");

        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + managementPort + "/actuator/prometheus")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        String health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/health")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(health).contains("\"kafka\":{\"status\":\"UP\"").contains("\"db\":{\"status\":\"UP\"");
        assertThat(metrics).contains("scheduler_placements_total").contains("scheduler_cycle_seconds")
                .contains("scheduler_claim_seconds").contains("scheduler_conflicts_total").contains("scheduler_backfills_total");
    }

    @Test
    void machinesAreListedForAdminsThatTheGatewayVouchesFor() {
        machines.register("list-2", "us-east-1", Map.of("pool", "gpu"), "H100", 16_500, 65_536, 4);
        Api admin = Api.withIdentity(port, SECRET, UUID.randomUUID(), "admin", CallerIdentity.Role.ADMIN);
        var listed = admin.get("/api/v1/machines");
        assertThat(listed.status()).isEqualTo(200);
        var machine = StreamSupport.stream(listed.json().get("items").spliterator(), false)
                .filter(m -> m.get("id").asString().equals("list-2")).findFirst().orElseThrow();
        assertThat(machine.get("region").asString()).isEqualTo("us-east-1");
        assertThat(machine.get("labels").get("pool").asString()).isEqualTo("gpu");
        assertThat(machine.get("capacity").get("cpu").decimalValue()).isEqualByComparingTo("16.5");
        assertThat(machine.get("capacity").get("memoryMb").asLong()).isEqualTo(65_536);
        assertThat(machine.get("capacity").get("gpuCount").asInt()).isEqualTo(4);
        assertThat(machine.get("allocated").get("cpu").decimalValue()).isEqualByComparingTo("0");
        assertThat(machine.get("gpuType").asString()).isEqualTo("H100");
        assertThat(machine.get("status").asString()).isEqualTo("READY");
        assertThat(machine.has("statusReason")).isTrue();
        assertThat(machine.has("lastHeartbeatAt")).isTrue();

        Api user = Api.withIdentity(port, SECRET, UUID.randomUUID(), "someone", CallerIdentity.Role.USER);
        assertThat(user.get("/api/v1/machines").status()).isEqualTo(403);
        assertThat(admin.as(null).get("/api/v1/machines").status()).isEqualTo(401);
        assertThat(admin.as("any-api-key").get("/api/v1/machines").status()).isEqualTo(401);
        assertThat(Api.withIdentity(port, "a-secret-this-service-lacks", UUID.randomUUID(), "admin", CallerIdentity.Role.ADMIN)
                .get("/api/v1/machines").status()).isEqualTo(401);
        assertThat(admin.as(null).get("/actuator/health").status()).isIn(200, 503);
    }

    @Test
    void anOperatorDrainsCordonsAndUncordonsAMachineWithAReasonAndAJoinKeepsTheirWord() {
        machines.register("ops-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        Api admin = Api.withIdentity(port, SECRET, UUID.randomUUID(), "alice", CallerIdentity.Role.ADMIN);

        var drained = admin.post("/api/v1/machines/ops-1/drain", "{\"reason\": \"disk replacement\"}");
        assertThat(drained.status()).as(drained.body()).isEqualTo(200);
        assertThat(drained.field("status")).isEqualTo("DRAINING");
        assertThat(drained.field("statusReason")).isEqualTo("drained by alice: disk replacement");
        // the agent restarts: an operator's word outlives it
        machines.register("ops-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        assertThat(machines.get("ops-1").orElseThrow().status()).isEqualTo(MachineStatus.DRAINING);

        assertThat(admin.post("/api/v1/machines/ops-1/cordon", "{\"reason\": \"kernel update\"}").field("status"))
                .isEqualTo("CORDONED");
        var back = admin.post("/api/v1/machines/ops-1/uncordon", "{\"reason\": \"done\"}");
        assertThat(back.field("status")).isEqualTo("READY");
        assertThat(back.field("statusReason")).isEqualTo("uncordoned by alice: done");
        assertThat(admin.post("/api/v1/machines/ops-1/uncordon", "{\"reason\": \"again\"}").field("statusReason"))
                .as("uncordon of a READY machine changes nothing").isEqualTo("uncordoned by alice: done");
        // the platform's status is the platform's again: a join clears it
        machines.register("ops-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        assertThat(machines.get("ops-1").orElseThrow().statusReason()).isNull();
    }

    @Test
    void badOperatorRequestsAreRefusedWithTheFieldNamedAndChangeNothing() {
        machines.register("ops-2", "eu", Map.of(), null, 4_000, 8_192, 0);
        Api admin = Api.withIdentity(port, SECRET, UUID.randomUUID(), "alice", CallerIdentity.Role.ADMIN);
        for (String body : new String[] {"{}", "{\"reason\": \"  \"}", "{\"reason\": 7}", "",
                "{\"reason\": \"" + "x".repeat(501) + "\"}"}) {
            var refused = admin.post("/api/v1/machines/ops-2/drain", body);
            assertThat(refused.status()).as(body).isEqualTo(400);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("reason");
        }
        assertThat(admin.post("/api/v1/machines/ops-2/drain", "{not json").json().get("errors").get(0).get("field")
                .asString()).isEqualTo("body");
        assertThat(admin.post("/api/v1/machines/ops-2/drain", "[\"x\"]").json().get("errors").get(0).get("field")
                .asString()).isEqualTo("body");
        // an unknown field was ignored: a misspelt reason beside the reason drained the machine
        var misspelt = admin.post("/api/v1/machines/ops-2/drain", "{\"reason\": \"x\", \"force\": true}");
        assertThat(misspelt.status()).isEqualTo(400);
        assertThat(misspelt.json().get("errors").get(0).get("field").asString()).isEqualTo("force");
        assertThat(misspelt.json().get("errors").get(0).get("message").asString()).isEqualTo("unknown field");
        // PostgreSQL's text cannot hold NUL: the reason failed at the update with a 500
        var nul = admin.post("/api/v1/machines/ops-2/cordon", "{\"reason\": \"disk\\u0000\"}");
        assertThat(nul.status()).isEqualTo(400);
        assertThat(nul.json().get("errors").get(0).get("message").asString()).contains("NUL");
        assertThat(machines.get("ops-2").orElseThrow().status()).isEqualTo(MachineStatus.READY);
        assertThat(admin.post("/api/v1/machines/no-such/drain", "{\"reason\": \"x\"}").status()).isEqualTo(404);
        Api user = Api.withIdentity(port, SECRET, UUID.randomUUID(), "mallory", CallerIdentity.Role.USER);
        assertThat(user.post("/api/v1/machines/ops-2/drain", "{\"reason\": \"x\"}").status()).isEqualTo(403);
        jdbc.sql("update machines set status = 'LOST' where id = 'ops-2'").update();
        var lost = admin.post("/api/v1/machines/ops-2/cordon", "{\"reason\": \"x\"}");
        assertThat(lost.status()).isEqualTo(409);
        assertThat(lost.json().get("detail").asString()).contains("LOST");
        assertThat(machines.get("ops-2").orElseThrow().status()).isEqualTo(MachineStatus.LOST);
    }

    @Test
    void anOversizedAgentBodyIs413BeforeItsCredentialIsCheckedOrItIsParsed() {
        Api stranger = new Api(port, "not-a-machine-credential");
        byte[] big = new byte[5 * 1024 * 1024];
        Arrays.fill(big, (byte) '{'); // not JSON either: a parse would answer 400, a credential check 401
        var declared = stranger.post("/agent/v1/heartbeat", new String(big, StandardCharsets.US_ASCII));
        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.contentType()).startsWith("application/problem+json");
        assertThat(declared.json().get("detail").asString()).contains("1048576");
        assertThat(stranger.postStreamed("/agent/v1/heartbeat", big).status()).as("chunked, no Content-Length")
                .isEqualTo(413);
        assertThat(stranger.postStreamed("/agent/v1/join", Arrays.copyOf(big, 1024 * 1024 + 1)).status())
                .isEqualTo(413);

        String heartbeat = "{\"machineId\": \"m-x\", \"incarnation\": 1, \"attempts\": [], \"waitMs\": 0}";
        assertThat(stranger.post("/agent/v1/heartbeat", heartbeat).status()).as("a normal body goes on to the credential check")
                .isEqualTo(401);
        assertThat(stranger.postStreamed("/agent/v1/heartbeat", heartbeat.getBytes(StandardCharsets.UTF_8))
                .status()).as("chunked within the limit: read and handed on").isEqualTo(401);
    }

    @Test
    void aJoinSaysHowManyAttemptsItsMachineRunsAtOnceOrTakesTheDefault() {
        Api join = new Api(port, JOIN_TOKEN);
        String body = """
                {"machineId": "%s", "region": "nowhere", "labels": {}, "cpuMillis": 1, "memoryMb": 1, "gpuCount": 0%s}""";
        assertThat(join.post("/agent/v1/join", body.formatted("m-says", ", \"maxLiveAttempts\": 7")).status()).isEqualTo(200);
        assertThat(join.post("/agent/v1/join", body.formatted("m-silent", "")).status()).isEqualTo(200);
        assertThat(machines.get("m-says").orElseThrow().machine().maxLiveAttempts()).isEqualTo(7);
        assertThat(machines.get("m-silent").orElseThrow().machine().maxLiveAttempts())
                .isEqualTo(AgentProperties.DEFAULT_MAX_LIVE_ATTEMPTS);
        var refused = join.post("/agent/v1/join", body.formatted("m-zero", ", \"maxLiveAttempts\": 0"));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("detail").asString()).contains("maxLiveAttempts");
        assertThat(machines.get("m-zero")).isEmpty();
    }

    @Test
    void theMachinesApiShowsWhatASandboxDoesNotHoldAsItsAgentSaidAtJoin() {
        Api join = new Api(port, JOIN_TOKEN);
        String body = """
                {"machineId": "%s", "region": "nowhere", "labels": {}, "cpuMillis": 1, "memoryMb": 1, "gpuCount": 0,
                 "isolation": "%s"%s}""";
        assertThat(join.post("/agent/v1/join", body.formatted("m-gaps", "sandbox",
                ", \"isolationGaps\": [\"egress\", \"cgroups\", \"egress\"]")).status()).isEqualTo(200);
        assertThat(join.post("/agent/v1/join", body.formatted("m-whole", "sandbox", ", \"isolationGaps\": []")).status())
                .isEqualTo(200);
        assertThat(join.post("/agent/v1/join", body.formatted("m-older", "sandbox", "")).status()).isEqualTo(200);
        assertThat(join.post("/agent/v1/join", body.formatted("m-bare", "none", ", \"isolationGaps\": [\"egress\"]"))
                .status()).isEqualTo(200);
        var refused = join.post("/agent/v1/join", body.formatted("m-odd", "sandbox", ", \"isolationGaps\": [\"Egress!\"]"));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().get("detail").asString()).contains("isolationGaps");
        assertThat(machines.get("m-odd")).isEmpty();

        Api admin = Api.withIdentity(port, SECRET, UUID.randomUUID(), "admin", CallerIdentity.Role.ADMIN);
        Map<String, JsonNode> listed = new HashMap<>();
        admin.get("/api/v1/machines").json().get("items").forEach(m -> listed.put(m.get("id").asString(), m));

        assertThat(listed.get("m-gaps").get("isolationGaps")).map(JsonNode::asString)
                .containsExactly("egress", "cgroups");
        assertThat(listed.get("m-whole").get("isolationGaps")).isEmpty();
        assertThat(listed.get("m-older").has("isolationGaps")).as("an agent that did not say").isFalse();
        assertThat(listed.get("m-bare").has("isolationGaps")).as("no sandbox: nothing to hold").isFalse();
        assertThat(listed.get("m-bare").get("isolation").asString()).isEqualTo("none");
        var cordoned = admin.post("/api/v1/machines/m-gaps/cordon", "{\"reason\": \"a look at its sandbox\"}");
        assertThat(cordoned.status()).isEqualTo(200);
        assertThat(cordoned.json().get("isolationGaps")).as("one machine's view says it too")
                .map(JsonNode::asString).containsExactly("egress", "cgroups");
    }

    @Test
    void theHeartbeatAnswersItsRefusalsAsProblemsNamingItsPath() {
        Api stranger = new Api(port, "not-a-machine-credential");
        var notJson = stranger.post("/agent/v1/heartbeat", "{not json");
        assertThat(notJson.status()).as("who calls is checked before what it sent is read").isEqualTo(401);

        var unknown = stranger.post("/agent/v1/heartbeat",
                "{\"machineId\": \"m-x\", \"incarnation\": 1, \"attempts\": [], \"waitMs\": 0}");
        assertThat(unknown.status()).isEqualTo(401);
        assertThat(unknown.contentType()).startsWith("application/problem+json");
        assertThat(unknown.json().get("instance").asString()).isEqualTo("/agent/v1/heartbeat");
        assertThat(unknown.json().get("detail").asString()).contains("join first");

        var joined = new Api(port, JOIN_TOKEN).post("/agent/v1/join", """
                {"machineId": "m-problems", "region": "nowhere", "labels": {}, "cpuMillis": 1, "memoryMb": 1, "gpuCount": 0}""");
        assertThat(joined.status()).as(joined.body()).isEqualTo(200);
        Api machine = new Api(port, joined.json().get("credential").asString());
        var garbled = machine.post("/agent/v1/heartbeat", "{not json");
        assertThat(garbled.status()).isEqualTo(400);
        assertThat(garbled.contentType()).startsWith("application/problem+json");
        assertThat(garbled.json().get("detail").asString()).startsWith("the body is not a heartbeat");
        var wrongType = machine.post("/agent/v1/heartbeat", "{\"machineId\": \"m-problems\", \"incarnation\": \"one\"}");
        assertThat(wrongType.status()).isEqualTo(400);
        assertThat(wrongType.json().get("detail").asString()).contains("incarnation");
    }
}
