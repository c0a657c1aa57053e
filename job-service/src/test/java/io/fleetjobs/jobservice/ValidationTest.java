package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.testsupport.Api;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;

/** Each bad input: 400 problem+json naming the field at fault, and nothing written. */
class ValidationTest extends JobServiceTestBase {
    private static final String RES = "\"resources\": {\"cpu\": 1, \"memoryMb\": 128}";
    private static final String EXE = "\"execution\": {\"command\": [\"true\"]}";

    @Autowired
    JdbcClient jdbc;
    private Api user;

    @BeforeEach
    void tenant() {
        user = tenantOnce();
    }

    private static Api cached;

    private Api tenantOnce() {
        if (cached == null) {
            cached = newTenant("validation");
        }
        return cached;
    }

    static List<Arguments> badSpecs() {
        return List.of(
                Arguments.of("missing resources", "{\"name\": \"n\", " + EXE + "}", "resources"),
                Arguments.of("negative cpu", "{\"name\": \"n\", \"resources\": {\"cpu\": -1, \"memoryMb\": 1}, " + EXE + "}", "resources.cpu"),
                Arguments.of("zero cpu", "{\"name\": \"n\", \"resources\": {\"cpu\": 0, \"memoryMb\": 1}, " + EXE + "}", "resources.cpu"),
                Arguments.of("missing memory", "{\"name\": \"n\", \"resources\": {\"cpu\": 1}, " + EXE + "}", "resources.memoryMb"),
                Arguments.of("negative memory", "{\"name\": \"n\", \"resources\": {\"cpu\": 1, \"memoryMb\": -5}, " + EXE + "}", "resources.memoryMb"),
                Arguments.of("negative gpus", "{\"name\": \"n\", \"resources\": {\"cpu\": 1, \"memoryMb\": 1, \"gpuCount\": -1}, " + EXE + "}", "resources.gpuCount"),
                Arguments.of("empty command", "{\"name\": \"n\", " + RES + ", \"execution\": {\"command\": []}}", "execution.command"),
                Arguments.of("missing command", "{\"name\": \"n\", " + RES + ", \"execution\": {}}", "execution.command"),
                Arguments.of("missing execution", "{\"name\": \"n\", " + RES + "}", "execution"),
                Arguments.of("bad name", "{\"name\": \"no spaces\", " + RES + ", " + EXE + "}", "name"),
                Arguments.of("missing name", "{" + RES + ", " + EXE + "}", "name"),
                Arguments.of("priority too high", "{\"name\": \"n\", \"priority\": 1001, " + RES + ", " + EXE + "}", "priority"),
                Arguments.of("priority negative", "{\"name\": \"n\", \"priority\": -1, " + RES + ", " + EXE + "}", "priority"),
                Arguments.of("attempts zero", "{\"name\": \"n\", \"retry\": {\"maxAttempts\": 0}, " + RES + ", " + EXE + "}", "retry.maxAttempts"),
                Arguments.of("attempts too many", "{\"name\": \"n\", \"retry\": {\"maxAttempts\": 21}, " + RES + ", " + EXE + "}", "retry.maxAttempts"),
                Arguments.of("bad exit code", "{\"name\": \"n\", \"retry\": {\"retryOnExitCodes\": [75, 0]}, " + RES + ", " + EXE + "}", "retry.retryOnExitCodes[1]"),
                Arguments.of("unknown field", "{\"name\": \"n\", \"colour\": \"red\", " + RES + ", " + EXE + "}", "colour"),
                Arguments.of("unknown nested field", "{\"name\": \"n\", \"resources\": {\"cpu\": 1, \"memoryMb\": 1, \"cpus\": 2}, " + EXE + "}", "resources.cpus"),
                Arguments.of("wrong type", "{\"name\": \"n\", \"resources\": {\"cpu\": \"lots\", \"memoryMb\": 1}, " + EXE + "}", "resources.cpu"),
                // a number past its type's range: the parser refused it, and the answer named only "body"
                Arguments.of("memory past a long", "{\"name\": \"n\", \"resources\": {\"cpu\": 1, \"memoryMb\": 99999999999999999999}, " + EXE + "}", "resources.memoryMb"),
                Arguments.of("priority past an int", "{\"name\": \"n\", \"priority\": 9999999999, " + RES + ", " + EXE + "}", "priority"),
                Arguments.of("empty string for a number", "{\"name\": \"n\", \"priority\": \"\", " + RES + ", " + EXE + "}", "priority"),
                // Jackson read a string of digits as the number, and the last of a field given twice
                Arguments.of("a string for a number", "{\"name\": \"n\", \"priority\": \"3\", " + RES + ", " + EXE + "}", "priority"),
                Arguments.of("a string for a nested number", "{\"name\": \"n\", \"resources\": {\"cpu\": \"1\", \"memoryMb\": 1}, " + EXE + "}", "resources.cpu"),
                Arguments.of("a string for a boolean", "{\"name\": \"n\", \"preemptible\": \"false\", " + RES + ", " + EXE + "}", "preemptible"),
                Arguments.of("a field twice", "{\"name\": \"n\", \"name\": \"m\", " + RES + ", " + EXE + "}", "name"),
                Arguments.of("a nested field twice", "{\"name\": \"n\", \"resources\": {\"cpu\": 1, \"memoryMb\": 1, \"cpu\": 64}, " + EXE + "}", "resources.cpu"),
                Arguments.of("fractional priority", "{\"name\": \"n\", \"priority\": 1.5, " + RES + ", " + EXE + "}", "priority"),
                Arguments.of("command not a list", "{\"name\": \"n\", " + RES + ", \"execution\": {\"command\": \"echo hi\"}}", "execution.command"),
                Arguments.of("bad env name", "{\"name\": \"n\", " + RES + ", \"execution\": {\"command\": [\"true\"], \"env\": {\"1X\": \"v\"}}}", "execution.env[1X]"),
                Arguments.of("a network that does not exist", "{\"name\": \"n\", " + RES + ", \"execution\": {\"command\": [\"true\"], \"network\": \"bridge\"}}", "execution.network"),
                Arguments.of("a gang of its own network", "{\"name\": \"n\", \"replicas\": 2, " + RES + ", \"execution\": {\"command\": [\"true\"], \"network\": \"none\"}}", "execution.network"),
                Arguments.of("bad gpu type", "{\"name\": \"n\", \"resources\": {\"cpu\": 1, \"memoryMb\": 1, \"gpuType\": \"A100||\"}, " + EXE + "}", "resources.gpuType"),
                // PostgreSQL's text cannot hold NUL: each of these failed at the insert with a 500
                Arguments.of("NUL in an argument", "{\"name\": \"n\", " + RES + ", \"execution\": {\"command\": [\"sh\", \"a\\u0000\"]}}", "execution.command[1]"),
                Arguments.of("NUL in an env value", "{\"name\": \"n\", " + RES + ", \"execution\": {\"command\": [\"true\"], \"env\": {\"A\": \"\\u0000\"}}}", "execution.env[A]"),
                Arguments.of("an argument longer than exec takes", "{\"name\": \"n\", " + RES + ", \"execution\": {\"command\": [\"echo\", \"" + "é".repeat(65_536) + "\"]}}", "execution.command[1]"),
                Arguments.of("an env value longer than exec takes", "{\"name\": \"n\", " + RES + ", \"execution\": {\"command\": [\"true\"], \"env\": {\"A\": \"" + "é".repeat(65_536) + "\"}}}", "execution.env[A]"),
                Arguments.of("NUL in a label's value", "{\"name\": \"n\", \"labels\": {\"team\": \"v\\u0000\"}, " + RES + ", " + EXE + "}", "labels[team]"),
                Arguments.of("NUL in a label's key", "{\"name\": \"n\", \"labels\": {\"t\\u0000\": \"v\"}, " + RES + ", " + EXE + "}", "labels"),
                Arguments.of("malformed JSON", "{\"name\": \"n\", ", "body"),
                Arguments.of("not an object", "[1, 2]", "body"),
                Arguments.of("empty body", null, "body"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSpecs")
    void aBadSpecIsRefusedNamingTheFieldAndWritesNothing(String what, String body, String field) {
        long before = rows();
        var response = user.post("/api/v1/jobs", body);
        assertThat(response.status()).as(response.body()).isEqualTo(400);
        assertThat(response.contentType()).startsWith("application/problem+json");
        assertThat(fields(response.json())).as(response.body()).contains(field);
        assertThat(rows()).isEqualTo(before);
    }

    @Test
    void aBodyThatIsNotAnObjectIsToldSoWithoutTheServersOwnNames() {
        for (String body : List.of("[]", "\"x\"", "42")) {
            var response = user.post("/api/v1/jobs", body);
            assertThat(response.status()).as(body).isEqualTo(400);
            assertThat(response.json().path("errors").get(0).path("message").asString()).as(body)
                    .isEqualTo("must be a JSON object");
            assertThat(response.body()).as(body).doesNotContain("io.fleetjobs").doesNotContain("JsonToken");
        }
    }

    @Test
    void eachFieldAtFaultIsListed() {
        var response = user.post("/api/v1/jobs", """
                {"name": "", "priority": 5000, "resources": {"cpu": -1, "memoryMb": 0}, "execution": {"command": []}}""");
        assertThat(response.status()).isEqualTo(400);
        assertThat(fields(response.json())).containsExactlyInAnyOrder(
                "name", "priority", "resources.cpu", "resources.memoryMb", "execution.command");
    }

    @Test
    void badHeadersAndQueryParametersAreNamedToo() {
        long before = rows();
        var longKey = user.post("/api/v1/jobs", spec("k"), Map.of("Idempotency-Key", "x".repeat(129)));
        assertThat(longKey.status()).isEqualTo(400);
        assertThat(fields(longKey.json())).containsExactly("Idempotency-Key");
        assertThat(rows()).isEqualTo(before);
        assertThat(fields(user.get("/api/v1/jobs?limit=0").json())).containsExactly("limit");
        assertThat(fields(user.get("/api/v1/jobs?limit=501").json())).containsExactly("limit");
        assertThat(fields(user.get("/api/v1/jobs?state=DONE").json())).containsExactly("state");
        assertThat(fields(user.get("/api/v1/jobs?pageToken=%21%21").json())).containsExactly("pageToken");
        assertThat(fields(user.get("/api/v1/jobs?limit=ten").json())).containsExactly("limit");
        assertThat(fields(user.get("/api/v1/jobs/" + UUID.randomUUID() + "/attempts/99999999999/logs").json()))
                .containsExactly("attempt");
        String someJob = "/api/v1/jobs/" + UUID.randomUUID();
        for (String logs : List.of("/attempts/0/logs", "/attempts/-1/logs", "/attempts/0/logs?follow=true")) {
            var response = user.get(someJob + logs);
            assertThat(response.status()).as(logs).isEqualTo(400); // attempts are numbered from 1: not "no such attempt"
            assertThat(fields(response.json())).as(logs).containsExactly("attempt");
        }
        for (String notTrueOrFalse : List.of("1", "TRUE", "yes", "")) {
            assertThat(fields(user.get(someJob + "/attempts/1/logs?follow=" + notTrueOrFalse).json())).containsExactly("follow");
            assertThat(fields(user.get(someJob + "/events?follow=" + notTrueOrFalse).json())).containsExactly("follow");
        }
        assertThat(user.get(someJob + "/events?follow=false").status()).isEqualTo(404);
        assertThat(fields(user.get("/api/v1/jobs?label=a%00b").json())).containsExactly("label");
        assertThat(fields(user.get("/api/v1/jobs?name=a%00b").json())).containsExactly("name");
        assertThat(fields(user.get("/api/v1/jobs?queue=a%00b").json())).containsExactly("queue");
    }

    private long rows() {
        // a job's history rows are also its events (V33)
        return jdbc.sql("select (select count(*) from jobs) + (select count(*) from job_history)")
                .query(Long.class).single();
    }

    private static List<String> fields(JsonNode problem) {
        List<String> fields = new ArrayList<>();
        JsonNode errors = problem.get("errors");
        if (errors != null) {
            errors.forEach(e -> fields.add(e.get("field").asString()));
        }
        return fields;
    }
}
