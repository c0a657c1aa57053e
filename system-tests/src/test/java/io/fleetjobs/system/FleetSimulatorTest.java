package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The fleet simulator end to end: one {@code worker-agent.jar} process playing 50 machines of a CSV file (two
 * regions, one machine with GPUs) against the real services; jobs end after {@code SIM_DURATION_MS} with
 * {@code SIM_EXIT_CODE} on the simulated machine their constraints allow, and cancels and timeouts end them
 * as they would end a process.
 */
class FleetSimulatorTest {
    private static final int EAST = 30;
    private static final int WEST = 19;
    private static final String GPU_MACHINE = "sim-west-gpu";
    private static Platform platform;
    private static Api user;
    private static final Set<String> eastMachines = new TreeSet<>();
    private static final Set<String> westMachines = new TreeSet<>();

    @BeforeAll
    static void start() throws IOException {
        List<String> csv = new ArrayList<>();
        csv.add("id,region,cpu,memoryMb,gpuCount,gpuType,labels");
        for (int i = 1; i <= EAST; i++) {
            String id = "sim-east-%02d".formatted(i);
            eastMachines.add(id);
            csv.add(id + ",sim-east,4,8192,0,,pool=batch");
        }
        for (int i = 1; i <= WEST; i++) {
            String id = "sim-west-%02d".formatted(i);
            westMachines.add(id);
            csv.add(id + ",sim-west,2,4096,0,,pool=batch;disk=ssd");
        }
        westMachines.add(GPU_MACHINE);
        csv.add(GPU_MACHINE + ",sim-west,16,65536,2,H100,pool=gpu");
        Path file = Path.of("target", "fleet-simulator", "machines.csv").toAbsolutePath();
        Files.createDirectories(file.getParent());
        Files.write(file, csv);

        platform = new Platform(Map.of());
        user = platform.tenant("fleet-sim");
        platform.agent("fleet-simulator", platform.schedulerPort(), "--jobs.worker.simulate.machines=" + file);
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .until(() -> readyMachines().size() == EAST + WEST + 1);
    }

    @AfterAll
    static void stop() {
        if (platform != null) {
            platform.close();
        }
    }

    private static Map<String, JsonNode> readyMachines() {
        Map<String, JsonNode> ready = new HashMap<>();
        var response = platform.admin.get("/api/v1/machines");
        if (response.status() == 200) {
            response.json().get("items").forEach(m -> {
                if ("READY".equals(m.get("status").asString())) {
                    ready.put(m.get("id").asString(), m);
                }
            });
        }
        return ready;
    }

    private static String submit(String name, String resources, String placement, String env, String more) {
        var created = user.post("/api/v1/jobs", """
                {"name": "%s", "resources": %s, "placement": %s,
                 "execution": {"command": ["simulated"], "env": %s %s},
                 "retry": {"maxAttempts": 1}}""".formatted(name, resources, placement, env, more));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.field("id");
    }

    private static JsonNode awaitState(String id, String state) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> state.equals(user.get("/api/v1/jobs/" + id).field("state")));
        return user.get("/api/v1/jobs/" + id).json();
    }

    private static JsonNode onlyAttempt(String id) {
        JsonNode attempts = user.get("/api/v1/jobs/" + id + "/attempts").json().get("items");
        assertThat(attempts.size()).isEqualTo(1);
        return attempts.get(0);
    }

    @Test
    void theMachinesListsEverySimulatedMachineAsTheFileDescribesIt() {
        Map<String, JsonNode> machines = readyMachines();

        Set<String> all = new TreeSet<>(eastMachines);
        all.addAll(westMachines);
        assertThat(machines.keySet()).containsExactlyInAnyOrderElementsOf(all);
        JsonNode east = machines.get("sim-east-01");
        assertThat(east.get("region").asString()).isEqualTo("sim-east");
        assertThat(east.get("capacity").get("memoryMb").asLong()).isEqualTo(8192);
        assertThat(east.get("labels").get("pool").asString()).isEqualTo("batch");
        JsonNode gpu = machines.get(GPU_MACHINE);
        assertThat(gpu.get("region").asString()).isEqualTo("sim-west");
        assertThat(gpu.get("capacity").get("gpuCount").asInt()).isEqualTo(2);
        assertThat(gpu.get("gpuType").asString()).isEqualTo("H100");
        assertThat(machines.get("sim-west-03").get("labels").get("disk").asString()).isEqualTo("ssd");
    }

    @Test
    void jobsEndWithTheirSimulatedExitCodeOnAMachineOfTheirRegion() {
        List<String> east = new ArrayList<>();
        List<String> west = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            east.add(submit("east-ok-" + i, "{\"cpu\": 1, \"memoryMb\": 512}", "{\"region\": \"sim-east\"}",
                    "{\"SIM_DURATION_MS\": \"300\"}", ""));
            west.add(submit("west-fails-" + i, "{\"cpu\": 1, \"memoryMb\": 512}", "{\"region\": \"sim-west\"}",
                    "{\"SIM_DURATION_MS\": \"100\", \"SIM_EXIT_CODE\": \"3\"}", ""));
        }
        for (String id : east) {
            JsonNode job = awaitState(id, "SUCCEEDED");
            assertThat(job.get("exitCode").asInt()).isZero();
            assertThat(eastMachines).contains(onlyAttempt(id).get("machineId").asString());
        }
        for (String id : west) {
            JsonNode job = awaitState(id, "FAILED");
            assertThat(job.get("exitCode").asInt()).isEqualTo(3);
            assertThat(job.get("failureReason").asString()).isEqualTo("EXIT_CODE");
            JsonNode attempt = onlyAttempt(id);
            assertThat(westMachines).contains(attempt.get("machineId").asString());
            assertThat(attempt.get("exitCode").asInt()).isEqualTo(3);
        }
    }

    @Test
    void aGpuJobRunsOnTheSimulatedGpuMachine() {
        String id = submit("gpu", "{\"cpu\": 2, \"memoryMb\": 1024, \"gpuCount\": 1, \"gpuType\": \"A100|H100\"}",
                "{\"labels\": {\"pool\": \"gpu\"}}", "{}", "");

        JsonNode job = awaitState(id, "SUCCEEDED");

        assertThat(job.get("machineId").asString()).isEqualTo(GPU_MACHINE);
        assertThat(onlyAttempt(id).get("exitCode").asInt()).isZero();
    }

    @Test
    void aCanceledJobIsKilledAndATimedOutOneFails() {
        String canceled = submit("long-canceled", "{\"cpu\": 1, \"memoryMb\": 256}", "{}",
                "{\"SIM_DURATION_MS\": \"3600000\"}", "");
        String timedOut = submit("long-timed-out", "{\"cpu\": 1, \"memoryMb\": 256}", "{}",
                "{\"SIM_DURATION_MS\": \"3600000\"}", ", \"timeoutSeconds\": 1");
        awaitState(canceled, "RUNNING");

        assertThat(user.post("/api/v1/jobs/" + canceled + "/cancel", null).status()).isEqualTo(202);

        awaitState(canceled, "CANCELED");
        assertThat(onlyAttempt(canceled).get("exitCode").asInt()).isEqualTo(143);
        JsonNode job = awaitState(timedOut, "FAILED");
        assertThat(job.get("failureReason").asString()).isEqualTo("TIMEOUT");
    }
}
