package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Preemption with real agents and processes (issue 20): on a machine of one core, a job of priority 900 that
 * fits nowhere ends the priority-100 job running there. The victim's process receives SIGTERM (it exits 143 from
 * its trap), its attempt ends PREEMPTED and the job waits to run again, spending no attempt; the preemptor's
 * process starts only after the victim's is gone, as the processes themselves tell the witness. A job that opted
 * out ({@code preemptible: false}) is never preempted.
 */
class PreemptionTest {
    private static Platform platform;
    private static Api user;

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of());
        user = platform.tenant("preempting");
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    private static String submit(String name, int priority, String region, boolean preemptible, int witnessPort) {
        String script = "exec 3<>/dev/tcp/127.0.0.1/" + witnessPort + "; echo " + name + "-$JOBS_ATTEMPT >&3; "
                + "trap 'exit 143' TERM; while true; do sleep 0.1; done";
        var created = user.post("/api/v1/jobs", """
                {"name": "%s", "priority": %d, "preemptible": %s, "resources": {"cpu": 1, "memoryMb": 64},
                 "placement": {"region": "%s"}, "execution": {"command": ["bash", "-c", "%s"]}}"""
                .formatted(name, priority, preemptible, region, script));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.field("id");
    }

    @Test
    void aHigherPriorityJobThatFitsNowhereEndsALowerOneAndRunsInItsPlace() throws Exception {
        try (SilentPartitionTest.Witness witness = new SilentPartitionTest.Witness()) {
            platform.agent("one-core", platform.schedulerPort(), "--jobs.worker.region=preempt", "--jobs.worker.cpu=1");
            String low = submit("low", 100, "preempt", true, witness.port());
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> !witness.of("low-1").isEmpty());

            String high = submit("high", 900, "preempt", true, witness.port());
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !witness.of("high-1").isEmpty());

            var victim = witness.of("low-1").getFirst();
            var preemptor = witness.of("high-1").getFirst();
            assertThat(victim.ended()).as("the victim's process is gone").isTrue();
            assertThat(victim.closedAt()).as("the victim died before the preemptor started").isLessThan(preemptor.connectedAt());
            JsonNode attempt = user.get("/api/v1/jobs/" + low + "/attempts").json().get("items").get(0);
            assertThat(attempt.get("failureReason").asString()).isEqualTo("PREEMPTED");
            assertThat(attempt.get("exitCode").asInt()).as("it ended by its SIGTERM trap").isEqualTo(143);
            JsonNode lowJob = user.get("/api/v1/jobs/" + low).json();
            assertThat(lowJob.get("state").asString()).as("retried, waiting for room").isEqualTo("QUEUED");
            List<String> reasons = new ArrayList<>();
            user.get("/api/v1/jobs/" + low + "/events").json().get("items").forEach(e -> reasons.add(e.get("reason").asString()));
            assertThat(reasons).as("its history names the job it made room for")
                    .anyMatch(reason -> reason.contains("preempted by job " + high));
            assertThat(user.get("/api/v1/jobs/" + high).json().get("state").asString()).isEqualTo("RUNNING");

            user.post("/api/v1/jobs/" + high + "/cancel", null);
            user.post("/api/v1/jobs/" + low + "/cancel", null);
        }
    }

    @Test
    void aJobThatOptedOutIsNeverPreempted() throws Exception {
        try (SilentPartitionTest.Witness witness = new SilentPartitionTest.Witness()) {
            platform.agent("one-core-kept", platform.schedulerPort(), "--jobs.worker.region=kept", "--jobs.worker.cpu=1");
            String kept = submit("kept", 100, "kept", false, witness.port());
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> !witness.of("kept-1").isEmpty());
            String high = submit("waits", 900, "kept", true, witness.port());
            // a condition that must hold throughout, not a sleep: the kept job runs on while the other waits
            await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !witness.of("kept-1").getFirst().ended() && witness.of("waits-1").isEmpty());
            assertThat(user.get("/api/v1/jobs/" + high).json().get("state").asString()).isEqualTo("QUEUED");
            user.post("/api/v1/jobs/" + high + "/cancel", null);
            user.post("/api/v1/jobs/" + kept + "/cancel", null);
        }
    }
}
