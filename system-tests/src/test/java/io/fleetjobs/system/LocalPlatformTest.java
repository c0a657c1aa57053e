package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.local.LocalPlatform;
import io.fleetjobs.testsupport.Api;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The launcher's controls, which fault-injection tests use: a component killed with SIGKILL is gone
 * at once and comes back on start; a job of a killed agent runs again after the agent's restart;
 * PostgreSQL killed comes back with its data.
 */
class LocalPlatformTest {
    private static final String AGENT = LocalPlatform.AGENT_PREFIX + "1";

    private static LocalPlatform platform;
    private static Api admin;
    private static Path home;

    @BeforeAll
    static void start() throws Exception {
        home = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "local-platform-");
        platform = LocalPlatform.builder()
                .home(home)
                .repository(LocalMode.REPOSITORY)
                .workers(1)
                .portOffset(LocalMode.freePortOffset())
                .without(LocalPlatform.RECONCILER_SERVICE)
                .agentArgs("--jobs.worker.kill-grace=2s", "--jobs.worker.heartbeat-interval=1s")
                .stopTimeout(Duration.ofSeconds(10))
                .build()
                .start();
        admin = new Api(platform.url().getPort(), platform.adminToken());
    }

    @AfterAll
    static void stop() {
        if (platform == null) {
            return;
        }
        List<ProcessHandle> running = platform.components().stream().flatMap(c -> platform.process(c).stream()).toList();
        platform.stop();
        assertThat(running).allSatisfy(p -> assertThat(LocalMode.alive(p)).as("%s", p.info().commandLine()).isFalse());
        assertThat(platform.ports().values().stream().flatMap(List::stream).filter(p -> !LocalMode.portFree(p))).isEmpty();
        LocalMode.deleteTree(home); // PostgreSQL's binaries and data; kept for reading when a check above failed
    }

    @Test
    void aKilledServiceIsGoneAtOnceAndComesBackOnStart() {
        ProcessHandle before = platform.process(LocalPlatform.JOB_SERVICE).orElseThrow();
        platform.kill(LocalPlatform.JOB_SERVICE);
        assertThat(LocalMode.alive(before)).isFalse();
        assertThat(platform.isRunning(LocalPlatform.JOB_SERVICE)).isFalse();
        assertThat(LocalMode.portFree(platform.url(LocalPlatform.JOB_SERVICE).getPort())).isTrue();

        platform.start(LocalPlatform.JOB_SERVICE);
        assertThat(platform.process(LocalPlatform.JOB_SERVICE).orElseThrow().pid()).isNotEqualTo(before.pid());
        assertThat(admin.get("/api/v1/jobs").status()).isEqualTo(200);
    }

    @Test
    void aKilledAgentIsGoneAtOnceAndItsJobRunsAgainAfterItsRestart() {
        String id = submit("311");
        ProcessHandle agent = platform.process(AGENT).orElseThrow();
        ProcessHandle job = awaitJobProcess("sleep 311");

        platform.kill(AGENT);
        assertThat(LocalMode.alive(agent)).isFalse();
        platform.start(AGENT);
        assertThat(LocalMode.alive(job)).as("the job of the killed agent").isFalse();
        await().atMost(Duration.ofSeconds(30)).until(() -> attempts(id).size() >= 2);
        assertThat(attempts(id).get(0).get("failureReason").asString()).isEqualTo("AGENT_RESTARTED");
        cancel(id);
    }

    @Test
    void postgresKilledComesBackWithItsData() {
        var created = admin.post("/api/v1/jobs", """
                {"name":"kept","resources":{"cpu":0.1,"memoryMb":16},"execution":{"command":["true"]}}""");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.field("id");
        ProcessHandle postmaster = platform.process(LocalPlatform.POSTGRES).orElseThrow();

        platform.kill(LocalPlatform.POSTGRES);
        assertThat(LocalMode.alive(postmaster)).isFalse();
        platform.start(LocalPlatform.POSTGRES);

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> admin.get("/api/v1/jobs/" + id).status() == 200);
        assertThat(admin.get("/api/v1/jobs/" + id).field("name")).isEqualTo("kept");
    }

    @Test
    void aSandboxedJobIsRefusedAtEveryPortOfThePlatformButTheGatewaysApi() {
        List<Integer> platformPorts = new ArrayList<>();
        platform.ports().forEach((component, ports) -> {
            if (component.equals(LocalPlatform.API_GATEWAY)) {
                platformPorts.add(ports.get(1)); // its management port; its API (ports.get(0)) is the public one
            } else {
                platformPorts.addAll(ports);
            }
        });
        int gateway = platform.url().getPort();
        StringBuilder script = new StringBuilder("echo uid=$(id -u);");
        for (int port : platformPorts) {
            script.append(" if (exec 3<>/dev/tcp/127.0.0.1/%1$d) 2>/dev/null; then echo %1$d connected; else echo %1$d refused; fi;"
                    .formatted(port));
        }
        script.append(" if (exec 3<>/dev/tcp/127.0.0.1/%1$d) 2>/dev/null; then echo gateway connected; else echo gateway refused; fi"
                .formatted(gateway));
        var created = admin.post("/api/v1/jobs", """
                {"name":"prober","resources":{"cpu":0.1,"memoryMb":16},"execution":{"command":["bash","-c",%s]}}"""
                .formatted(JsonMapper.builder().build().writeValueAsString(script.toString())));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        String id = created.field("id");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> "SUCCEEDED".equals(admin.get("/api/v1/jobs/" + id).field("state")));
        String out = admin.get("/api/v1/jobs/" + id + "/attempts/1/logs").json().get("stdout").asString();
        JsonNode machine = admin.get("/api/v1/machines").json().get("items").get(0);
        Assumptions.assumeTrue("sandbox".equals(machine.get("isolation").asString()),
                "the agent does not sandbox its jobs here (not root): no egress rules to test");
        Assumptions.assumeFalse(machine.get("isolationGaps").toString().contains("\"egress\""),
                "the agent could not apply its egress rules here (no nftables), and says so at join: nothing to test");

        assertThat(platformPorts).hasSizeGreaterThanOrEqualTo(8); // PostgreSQL, Kafka twice, three services twice, ...
        for (int port : platformPorts) {
            assertThat(out).as("port %d", port).contains(port + " refused");
        }
        assertThat(out).as("the public API stays open to jobs").contains("gateway connected");
    }

    /**
     * {@code execution.network} none through the public API, on a sandboxing agent: the job reaches not even the
     * gateway's API, which the job above (the machine's network) reaches, and its own loopback works.
     */
    @Test
    void aJobWithANetworkOfItsOwnReachesNotEvenThePublicApiButItsLoopbackWorks() {
        JsonNode machine = admin.get("/api/v1/machines").json().get("items").get(0);
        Assumptions.assumeTrue("sandbox".equals(machine.get("isolation").asString()),
                "the agent does not sandbox its jobs here (not root): it cannot run a job of its own network");
        String script = "echo interfaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ,);"
                + " if (exec 3<>/dev/tcp/127.0.0.1/%1$d) 2>/dev/null; then echo gateway connected; else echo gateway refused; fi;"
                .formatted(platform.url().getPort())
                + " perl -MIO::Socket::INET -e '$l = IO::Socket::INET->new(Listen => 1, LocalAddr => \"127.0.0.1\","
                + " LocalPort => 0) or die; IO::Socket::INET->new(PeerAddr => \"127.0.0.1\", PeerPort => $l->sockport)"
                + " or die; print \"loopback works\\n\"'";
        var created = admin.post("/api/v1/jobs", """
                {"name":"alone","resources":{"cpu":0.1,"memoryMb":16},
                 "execution":{"command":["bash","-c",%s],"network":"none"}}"""
                .formatted(JsonMapper.builder().build().writeValueAsString(script)));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("execution").get("network").asString()).isEqualTo("none");
        String id = created.field("id");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> List.of("SUCCEEDED", "FAILED").contains(admin.get("/api/v1/jobs/" + id).field("state")));
        var logs = admin.get("/api/v1/jobs/" + id + "/attempts/1/logs").json();
        assertThat(admin.get("/api/v1/jobs/" + id).field("state")).as(logs.toString()).isEqualTo("SUCCEEDED");
        assertThat(logs.get("stdout").asString()).contains("interfaces=lo,\n").contains("gateway refused")
                .contains("loopback works");
    }

    private static String submit(String sleepSeconds) {
        var created = admin.post("/api/v1/jobs", """
                {"name":"sleeper","resources":{"cpu":0.1,"memoryMb":16},"execution":{"command":["sleep","%s"]}}"""
                .formatted(sleepSeconds));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.field("id");
    }

    /** The job's process, a child of the agent's. */
    private static ProcessHandle awaitJobProcess(String commandLine) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(
                () -> platform.process(AGENT).flatMap(a -> a.descendants()
                        .filter(p -> p.info().commandLine().map(c -> c.contains(commandLine)).orElse(false)).findFirst()),
                Optional::isPresent).orElseThrow();
    }

    private static List<JsonNode> attempts(String id) {
        List<JsonNode> items = new ArrayList<>();
        admin.get("/api/v1/jobs/" + id + "/attempts").json().get("items").forEach(items::add);
        return items;
    }

    private static void cancel(String id) {
        admin.post("/api/v1/jobs/" + id + "/cancel", null);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> "CANCELED".equals(admin.get("/api/v1/jobs/" + id).field("state")));
    }
}
