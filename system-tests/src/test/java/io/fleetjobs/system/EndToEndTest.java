package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Jobs run: real services, a real agent process, real job processes. */
class EndToEndTest {
    private static Platform platform;
    private static Api user;

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of());
        user = platform.tenant("e2e");
        platform.agent("e2e-machine-1", platform.schedulerPort());
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    private static String submit(String name, String script) {
        var created = user.post("/api/v1/jobs", """
                {"name": "%s", "resources": {"cpu": 0.5, "memoryMb": 64},
                 "execution": {"command": ["sh", "-c", %s]}}""".formatted(name, quoted(script)));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.field("id");
    }

    private static String quoted(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static JsonNode awaitState(String id, String state, Duration within) {
        await().atMost(within).pollInterval(Duration.ofMillis(50))
                .until(() -> state.equals(user.get("/api/v1/jobs/" + id).field("state")));
        return user.get("/api/v1/jobs/" + id).json();
    }

    private static List<String> path(String id) {
        List<String> states = new ArrayList<>();
        user.get("/api/v1/jobs/" + id + "/events").json().get("items").forEach(e -> states.add(e.get("to").asString()));
        return states;
    }

    @Test
    void aJobRunsToSuccessAndItsOutputIsKept() {
        String id = submit("hello", "echo hi");
        JsonNode job = awaitState(id, "SUCCEEDED", Duration.ofSeconds(60));
        assertThat(job.get("exitCode").asInt()).isZero();
        assertThat(path(id)).containsExactly("SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING", "SUCCEEDED");
        JsonNode attempts = user.get("/api/v1/jobs/" + id + "/attempts").json().get("items");
        assertThat(attempts.size()).isEqualTo(1);
        assertThat(attempts.get(0).get("machineId").asString()).isEqualTo("e2e-machine-1");
        assertThat(attempts.get(0).get("state").asString()).isEqualTo("SUCCEEDED");
        var logs = user.get("/api/v1/jobs/" + id + "/attempts/1/logs").json();
        assertThat(logs.get("stdout").asString()).isEqualTo("hi\n");
    }

    /**
     * Twenty jobs one after another, each run to success; prints the time from submit (the job's
     * first history row) to its process starting (the attempt's start, as the agent reported it): a
     * measurement for the docs, not an assertion on speed. A job that ends before its start report
     * is applied goes SCHEDULED to SUCCEEDED directly, so the RUNNING transition is not the measure.
     */
    @Test
    void submitToRunningIsMeasuredOnSequentialJobs() {
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = submit("latency-" + i, "true");
            awaitState(id, "SUCCEEDED", Duration.ofSeconds(60));
            Instant submitted = Instant.parse(
                    user.get("/api/v1/jobs/" + id + "/events").json().get("items").get(0).get("at").asString());
            JsonNode attempt = user.get("/api/v1/jobs/" + id + "/attempts").json().get("items").get(0);
            assertThat(attempt.get("startedAt").isNull()).as("job %s has a start time", id).isFalse();
            Instant started = Instant.parse(attempt.get("startedAt").asString());
            millis.add(Duration.between(submitted, started).toMillis());
        }
        Collections.sort(millis);
        System.out.printf("submit -> process started over %d sequential jobs: p50 %d ms, p90 %d ms, max %d ms%n",
                millis.size(), millis.get(millis.size() / 2), millis.get(millis.size() * 9 / 10), millis.getLast());
    }

    /**
     * A job may print any byte. One that printed NUL (which PostgreSQL's text cannot hold) made the end of its attempt
     * unwritable, and every other report of its machine's heartbeats with it: the job stayed RUNNING, and the jobs
     * placed after it on the machine never started.
     */
    @Test
    void aJobThatPrintsNulBytesEndsAndTheMachineGoesOnRunningOthers() {
        String binary = submit("prints-nul", "printf 'a\\000b\\n'; printf '\\000' >&2");
        String next = submit("after-nul", "echo next");
        awaitState(binary, "SUCCEEDED", Duration.ofSeconds(60));
        awaitState(next, "SUCCEEDED", Duration.ofSeconds(60));
        JsonNode logs = user.get("/api/v1/jobs/" + binary + "/attempts/1/logs").json();
        assertThat(logs.get("stdout").asString()).isEqualTo("a\uFFFDb\n");
        assertThat(logs.get("stderr").asString()).isEqualTo("\uFFFD");
    }

    @Test
    void aFailingCommandEndsFailedWithItsExitCode() {
        String id = submit("fails", "echo oops >&2; exit 3");
        JsonNode job = awaitState(id, "FAILED", Duration.ofSeconds(60));
        assertThat(job.get("exitCode").asInt()).isEqualTo(3);
        assertThat(job.get("failureReason").asString()).isEqualTo("EXIT_CODE");
        assertThat(user.get("/api/v1/jobs/" + id + "/attempts/1/logs").json().get("stderr").asString()).isEqualTo("oops\n");
    }

    @Test
    void aCanceledRunningJobsProcessIsGoneWithinTheGracePeriod() {
        String marker = "e2e-cancel-" + UUID.randomUUID();
        String id = submit("sleeper", "sleep 300; echo " + marker);
        awaitState(id, "RUNNING", Duration.ofSeconds(60));
        ProcessHandle process = await().atMost(Duration.ofSeconds(10)).until(() -> AgentFaultsTest.Processes.find(marker), Optional::isPresent)
                .orElseThrow();

        var canceled = user.post("/api/v1/jobs/" + id + "/cancel", null);
        assertThat(canceled.status()).isEqualTo(202);
        // SIGTERM reaches the group at once; the grace is 2 s in this platform, so 10 s is ample
        await().atMost(Duration.ofSeconds(10)).until(() -> AgentFaultsTest.Processes.gone(process));
        JsonNode job = awaitState(id, "CANCELED", Duration.ofSeconds(30));
        assertThat(job.get("cancelRequested").asBoolean()).isTrue();
        assertThat(user.get("/api/v1/jobs/" + id + "/attempts").json().get("items").get(0).get("state").asString())
                .isEqualTo("CANCELED");
    }

}
