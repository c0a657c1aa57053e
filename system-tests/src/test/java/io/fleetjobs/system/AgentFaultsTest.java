package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TcpProxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The agent under faults: a partition, a kill -9 and restart, bad configuration. */
class AgentFaultsTest {
    private static Platform platform;
    private static Api user;

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of("jobs.agent.lease-ttl", "3s"));
        user = platform.tenant("faults");
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    /** A job for the agent of one region only: each test's agent gets its own region, so tests stay apart. */
    private static String submit(String region, String script) {
        var created = user.post("/api/v1/jobs", """
                {"name": "f", "resources": {"cpu": 1, "memoryMb": 64}, "placement": {"region": "%s"},
                 "execution": {"command": ["sh", "-c", "%s"]}}""".formatted(region, script));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.field("id");
    }

    private static JsonNode job(String id) {
        return user.get("/api/v1/jobs/" + id).json();
    }

    private static void awaitState(String id, String state, int attempt) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
            JsonNode j = job(id);
            return state.equals(j.get("state").asString()) && j.get("attempt").asInt() == attempt;
        });
    }

    @Test
    void aPartitionedAgentKillsItsAttemptItselfAndTheAttemptsNeverOverlap() throws IOException {
        try (TcpProxy link = new TcpProxy(platform.schedulerPort())) {
            platform.agent("partitioned", link.port(), "--jobs.worker.region=partition");
            String marker = "partition-" + UUID.randomUUID();
            String id = submit("partition", "sleep 300; echo " + marker);
            awaitState(id, "RUNNING", 1);
            ProcessHandle first = await().atMost(Duration.ofSeconds(10)).until(() -> Processes.find(marker), Optional::isPresent)
                    .orElseThrow();

            link.cut();
            Instant cut = Instant.now();
            // lease TTL 3 s, then TERM; sleep dies on TERM: gone well within 15 s
            await().atMost(Duration.ofSeconds(15)).until(() -> Processes.gone(first));
            Instant killed = Instant.now();
            assertThat(Duration.between(cut, killed)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
            // the region has no other machine: nothing can have started again while the link was cut. (The
            // agent's LEASE_EXPIRED report goes only on its heartbeats, which the cut stops; should the job be
            // placed again on the same machine, not yet suspect, it cannot start there.)
            for (JsonNode a : user.get("/api/v1/jobs/" + id + "/attempts").json().get("items")) {
                if (a.get("attempt").asInt() > 1) {
                    assertThat(a.path("startedAt").isNull() || a.path("startedAt").isMissingNode())
                            .as("attempt %s started while the link was cut", a.get("attempt")).isTrue();
                }
            }

            link.restore();
            // the agent's report (LEASE_EXPIRED), or the reconciler if the cut outlasted the lost TTL
            // (MACHINE_LOST), sent the job back to the queue on the platform's budget, and it runs again
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
                JsonNode j = job(id);
                return "RUNNING".equals(j.get("state").asString()) && j.get("attempt").asInt() >= 2;
            });
            JsonNode attempts = user.get("/api/v1/jobs/" + id + "/attempts").json().get("items");
            assertThat(attempts.get(0).get("failureReason").asString()).isIn("LEASE_EXPIRED", "MACHINE_LOST");
            // attempts never overlap: each ended before the next one started
            for (int i = 0; i + 1 < attempts.size(); i++) {
                JsonNode next = attempts.get(i + 1);
                if (next.path("startedAt").isString()) {
                    Instant ended = Instant.parse(attempts.get(i).get("finishedAt").asString());
                    Instant started = Instant.parse(next.get("startedAt").asString());
                    assertThat(ended).as("attempt %d ended before %d started", i + 1, i + 2).isBefore(started);
                    assertThat(killed).isBefore(started.plusMillis(1));
                }
            }
            user.post("/api/v1/jobs/" + id + "/cancel", null);
            await().atMost(Duration.ofSeconds(60)).until(() -> "CANCELED".equals(job(id).get("state").asString()));
        }
    }

    @Test
    void aKilledAgentsJobsDieWithItAndARestartedAgentRunsThemAgain() {
        Platform.AgentProcess agent = platform.agent("restarted", platform.schedulerPort(), "--jobs.worker.region=restart");
        String marker = "restart-" + UUID.randomUUID();
        String id = submit("restart", "sleep 300; echo " + marker);
        awaitState(id, "RUNNING", 1);
        ProcessHandle orphan = await().atMost(Duration.ofSeconds(10)).until(() -> Processes.find(marker), Optional::isPresent)
                .orElseThrow();

        agent.kill(); // kill -9: the job's group loses its lifeline to the agent and kills itself
        await().atMost(Duration.ofSeconds(10)).until(() -> !agent.process().isAlive());
        await().atMost(Duration.ofSeconds(10)).until(() -> Processes.gone(orphan));

        platform.agent("restarted", platform.schedulerPort(), "--jobs.worker.region=restart");
        awaitState(id, "RUNNING", 2);
        JsonNode attempts = user.get("/api/v1/jobs/" + id + "/attempts").json().get("items");
        assertThat(attempts.get(0).get("failureReason").asString()).isEqualTo("AGENT_RESTARTED");
        assertThat(job(id).get("machineId").asString()).isEqualTo("restarted");
        user.post("/api/v1/jobs/" + id + "/cancel", null);
        awaitState(id, "CANCELED", 2);
    }

    /**
     * A machine dies (its agent and its job processes killed with SIGKILL): after the lost TTL the
     * reconciler declares it lost and the job runs on another machine. Prints the time from the
     * death to the job running elsewhere (a measurement, not an assertion on speed).
     */
    @Test
    void aDeadMachinesJobRunsElsewhere() {
        Platform.AgentProcess doomed = platform.agent("doomed", platform.schedulerPort(), "--jobs.worker.region=loss");
        String marker = "loss-" + UUID.randomUUID();
        String id = submit("loss", "sleep 300; echo " + marker);
        awaitState(id, "RUNNING", 1);
        assertThat(job(id).get("machineId").asString()).isEqualTo("doomed");
        ProcessHandle jobProcess = await().atMost(Duration.ofSeconds(10))
                .until(() -> Processes.find(marker), Optional::isPresent).orElseThrow();
        platform.agent("survivor", platform.schedulerPort(), "--jobs.worker.region=loss");

        Instant death = Instant.now();
        doomed.kill();
        jobProcess.destroyForcibly();
        awaitState(id, "RUNNING", 2);
        Duration recovery = Duration.between(death, Instant.now());
        JsonNode attempts = user.get("/api/v1/jobs/" + id + "/attempts").json().get("items");
        assertThat(attempts.get(0).get("failureReason").asString()).isEqualTo("MACHINE_LOST");
        assertThat(job(id).get("machineId").asString()).isEqualTo("survivor");
        System.out.printf("machine loss -> its job running elsewhere: %d ms (lost TTL 15 s)%n", recovery.toMillis());
        user.post("/api/v1/jobs/" + id + "/cancel", null);
        awaitState(id, "CANCELED", 2);
    }

    @Test
    void badConfigurationFailsFastSayingWhatToSet() throws Exception {
        assertThat(failedAgent("no-token", "--jobs.worker.join-token=")).contains("jobs.worker.join-token");
        assertThat(failedAgent("nowhere", "--jobs.worker.scheduler-url=http://127.0.0.1:1", "--jobs.worker.join-timeout=1s"))
                .contains("jobs.worker.scheduler-url");
        assertThat(failedAgent("bad-cpu", "--jobs.worker.cpu=lots")).contains("jobs.worker.cpu");
        assertThat(failedAgent("bad-token", "--jobs.worker.join-token=wrong")).contains("join-token");
    }

    /** Runs an agent that must exit at once, non-zero; returns its output. */
    private static String failedAgent(String machineId, String... args) throws Exception {
        Platform.AgentProcess agent = platform.agent(machineId, platform.schedulerPort(), args);
        assertThat(agent.process().waitFor(60, TimeUnit.SECONDS)).as(machineId + " exits").isTrue();
        assertThat(agent.process().exitValue()).as(machineId + " exit status").isNotZero();
        return Files.readString(agent.log());
    }

    /** Processes of jobs, found by a marker in their command line. */
    static final class Processes {
        static Optional<ProcessHandle> find(String marker) {
            List<ProcessHandle> found = new ArrayList<>();
            ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> c.contains(marker)).orElse(false))
                    .forEach(found::add);
            return found.stream().findFirst();
        }

        /** Ended, zombies included (orphans re-parented to a PID 1 that does not reap stay zombies). */
        static boolean gone(ProcessHandle process) {
            if (!process.isAlive()) {
                return true;
            }
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
                return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
            } catch (IOException e) {
                return true;
            }
        }
    }
}
