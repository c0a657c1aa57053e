package io.fleetjobs.jobctl;

import static io.fleetjobs.sdk.testing.StubApi.Answer.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.sdk.testing.StubApi;
import io.fleetjobs.sdk.testing.StubApi.Answer;
import io.fleetjobs.sdk.invoker.ApiClient;
import io.fleetjobs.sdk.model.JobSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * jobctl's commands against a stub of the API on a local port (a client test, not the platform): what each sends,
 * what it prints, table or JSON, and the exit codes scripts rely on.
 */
class JobCtlAgainstStubTest {
    private static final JsonMapper MODELS = ApiClient.createDefaultMapper(null);
    private final StubApi api = new StubApi();
    private final UUID id = UUID.randomUUID();
    private final String jobPath = "/api/v1/jobs/" + id;

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        api.close();
    }

    record Run(int code, String out, String err) {
    }

    private Run jobctl(String... args) {
        List<String> all = new ArrayList<>(List.of("--url", api.url(), "--token", "fj_test"));
        all.addAll(List.of(args));
        return run(all.toArray(String[]::new));
    }

    private static Run run(String... args) {
        CommandLine cmd = JobCtl.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void everyCommandShowsItsOwnHelpAndCallsNothing() {
        // "jobctl submit --help" was a usage error: only jobctl itself took --help
        for (String[] command : new String[][] {{"submit"}, {"logs"}, {"machines"}, {"machines", "drain"},
                {"admin", "tenants", "update"}}) {
            List<String> args = new ArrayList<>(List.of(command));
            args.add("--help");
            Run r = run(args.toArray(String[]::new));
            assertThat(r.code()).as(String.join(" ", args)).isZero();
            assertThat(r.out()).as(String.join(" ", args)).startsWith("Usage: jobctl " + String.join(" ", command));
        }
        assertThat(api.calls()).isEmpty();
    }

    private JobSpec submitted() {
        var calls = api.calls("POST", "/api/v1/jobs");
        assertThat(calls).hasSize(1);
        return MODELS.readValue(calls.getFirst().body(), JobSpec.class);
    }

    @Test
    void submitSendsTheFlagsAsASpecAndPrintsTheId() {
        api.on("POST", "/api/v1/jobs", Answer.json(201, StubApi.job(id, "SUBMITTED", 0)));
        Run r = jobctl("submit", "--name", "hello", "--cpu", "0.5", "--memory", "1Gi", "--env", "WHO=world",
                "--idempotency-key", "once", "--", "sh", "-c", "echo hello $WHO");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo(id + "\n");
        var call = api.calls("POST", "/api/v1/jobs").getFirst();
        assertThat(call.header("Authorization")).isEqualTo("Bearer fj_test");
        assertThat(call.header("Idempotency-Key")).isEqualTo("once");
        JsonNode body = MODELS.readTree(call.body());
        assertThat(body.path("name").asString()).isEqualTo("hello");
        assertThat(body.path("resources").path("memoryMb").asLong()).isEqualTo(1024);
        assertThat(body.path("resources").path("cpu").decimalValue()).isEqualByComparingTo("0.5");
        assertThat(body.path("execution").path("command")).extracting(JsonNode::asString)
                .containsExactly("sh", "-c", "echo hello $WHO");
        assertThat(body.path("execution").path("env").path("WHO").asString()).isEqualTo("world");
    }

    private static final String SPEC_JSON = """
            {"name": "from-file", "queue": "gpu", "priority": 900,
             "resources": {"cpu": 4, "memoryMb": 16384, "gpuCount": 1, "gpuType": "A100|H100"},
             "placement": {"region": "us-east-1", "labels": {"pool": "batch"}, "strategy": "SPREAD"},
             "execution": {"command": ["python", "train.py"], "env": {"EPOCHS": "3"}, "timeoutSeconds": 3600},
             "retry": {"maxAttempts": 3, "retryOnExitCodes": [75], "backoffSeconds": 5, "maxBackoffSeconds": 300},
             "labels": {"team": "vision"}}
            """;
    private static final String SPEC_YAML = """
            # the same spec as YAML
            name: from-file
            queue: gpu
            priority: 900
            resources: {cpu: 4, memoryMb: 16384, gpuCount: 1, gpuType: "A100|H100"}
            placement:
              region: us-east-1
              labels: {pool: batch}
              strategy: SPREAD
            execution:
              command: [python, train.py]
              env: {EPOCHS: "3"}
              timeoutSeconds: 3600
            retry: {maxAttempts: 3, retryOnExitCodes: [75], backoffSeconds: 5, maxBackoffSeconds: 300}
            labels: {team: vision}
            """;

    @Test
    void aSpecFileInJsonOrYamlIsSubmittedAsItSays() throws IOException {
        JobSpec expected = MODELS.readValue(SPEC_JSON, JobSpec.class);
        for (String[] file : new String[][] {{"spec.json", SPEC_JSON}, {"spec.yaml", SPEC_YAML}, {"spec.yml", SPEC_YAML}}) {
            try (StubApi fresh = new StubApi()) {
                fresh.on("POST", "/api/v1/jobs", Answer.json(201, StubApi.job(id, "SUBMITTED", 0)));
                Path path = Files.writeString(dir.resolve(file[0]), file[1]);
                Run r = run("--url", fresh.url(), "submit", "-f", path.toString());
                assertThat(r.code()).as(file[0] + ": " + r.err()).isZero();
                JobSpec sent = MODELS.readValue(fresh.calls("POST", "/api/v1/jobs").getFirst().body(), JobSpec.class);
                assertThat(sent).as(file[0]).isEqualTo(expected);
            }
        }
    }

    @Test
    void flagsAreLaidOverASpecFile() throws IOException {
        api.on("POST", "/api/v1/jobs", Answer.json(201, StubApi.job(id, "SUBMITTED", 0)));
        Path path = Files.writeString(dir.resolve("spec.yaml"), SPEC_YAML);
        Run r = jobctl("submit", "-f", path.toString(), "--name", "override", "--gpus", "2", "-e", "LR=0.1",
                "--machine-label", "zone=b", "--", "python", "eval.py");
        assertThat(r.code()).as(r.err()).isZero();
        JobSpec sent = submitted();
        assertThat(sent.getName()).isEqualTo("override");
        assertThat(sent.getQueue()).as("kept from the file").isEqualTo("gpu");
        assertThat(sent.getResources().getGpuCount()).isEqualTo(2);
        assertThat(sent.getResources().getGpuType()).isEqualTo("A100|H100");
        assertThat(sent.getExecution().getEnv()).containsEntry("EPOCHS", "3").containsEntry("LR", "0.1");
        assertThat(sent.getExecution().getCommand()).containsExactly("python", "eval.py");
        assertThat(sent.getExecution().getTimeoutSeconds()).isEqualTo(3600);
        assertThat(sent.getPlacement().getLabels()).containsEntry("pool", "batch").containsEntry("zone", "b");
    }

    @Test
    void aBadSpecFileIsAUsageErrorAndNothingIsSent() throws IOException {
        Path unknownField = Files.writeString(dir.resolve("typo.yaml"), "name: x\nresources: {cpu: 1, memoryMb: 64}\ncomand: [true]\n");
        Run typo = jobctl("submit", "-f", unknownField.toString());
        assertThat(typo.code()).isEqualTo(JobCtl.USAGE);
        assertThat(typo.err()).contains("is not a JobSpec", "comand");
        Path broken = Files.writeString(dir.resolve("broken.json"), "{\"name\": ");
        assertThat(jobctl("submit", "-f", broken.toString()).code()).isEqualTo(JobCtl.USAGE);
        Path empty = Files.writeString(dir.resolve("empty.yaml"), "");
        assertThat(jobctl("submit", "-f", empty.toString()).code()).isEqualTo(JobCtl.USAGE);
        Run missing = jobctl("submit", "-f", dir.resolve("nowhere.yaml").toString());
        assertThat(missing.code()).isEqualTo(JobCtl.USAGE);
        assertThat(missing.err()).contains("cannot read");
        assertThat(api.calls()).isEmpty();
    }

    @Test
    void outputJsonPrintsTheApisJsonAsItCame() {
        String job = StubApi.job(id, "RUNNING", 1);
        api.on("POST", "/api/v1/jobs", Answer.json(201, job));
        api.on("GET", jobPath, ok(job));
        api.on("POST", jobPath + "/cancel", Answer.json(202, job));
        api.on("GET", jobPath + "/events", ok(StubApi.events("SUBMITTED", "QUEUED")));
        api.on("GET", jobPath + "/attempts", ok("{\"items\":[{\"attempt\":1,\"machineId\":\"m-1\",\"state\":\"RUNNING\"}]}"));
        api.on("GET", "/api/v1/machines", ok(MACHINES));
        api.on("GET", "/api/v1/jobs", ok("{\"items\":[" + job + "]}"));
        assertThat(jobctl("-o", "json", "submit", "--name", "n", "--cpu", "1", "--memory", "64", "--", "true").out())
                .isEqualTo(job.strip() + "\n");
        assertThat(jobctl("get", id.toString(), "-o", "json").out()).isEqualTo(job.strip() + "\n");
        assertThat(jobctl("cancel", id.toString(), "-o", "json").out()).isEqualTo(job.strip() + "\n");
        assertThat(jobctl("events", id.toString(), "-o", "json").out()).isEqualTo(StubApi.events("SUBMITTED", "QUEUED") + "\n");
        assertThat(MODELS.readTree(jobctl("attempts", id.toString(), "-o", "json").out()).path("items").get(0)
                .path("machineId").asString()).isEqualTo("m-1");
        assertThat(MODELS.readTree(jobctl("machines", "-o", "json").out())).isEqualTo(MODELS.readTree(MACHINES));
        assertThat(MODELS.readTree(jobctl("list", "-o", "json").out()).path("items")).hasSize(1);
    }

    private static final String MACHINES = """
            {"items":[{"id":"gpu-1","region":"us-east-1","labels":{},"capacity":{"cpu":32,"memoryMb":131072,"gpuCount":8},
              "allocated":{"cpu":4,"memoryMb":16384,"gpuCount":1},"gpuType":"H100","status":"READY",
              "lastHeartbeatAt":"2026-01-02T03:04:05Z"}]}""";

    @Test
    void tablesForPeople() {
        api.on("GET", jobPath, ok(StubApi.job(id, "FAILED", 2)));
        api.on("GET", jobPath + "/events", ok(StubApi.events("SUBMITTED", "QUEUED", "SCHEDULED")));
        api.on("GET", jobPath + "/attempts", ok("""
                {"items":[{"attempt":1,"machineId":"m-1","state":"FAILED","exitCode":3,"failureReason":"EXIT_CODE"},
                          {"attempt":2,"machineId":"m-2","state":"RUNNING"}]}"""));
        api.on("GET", "/api/v1/machines", ok(MACHINES));

        Run get = jobctl("get", id.toString());
        assertThat(get.out()).contains("FIELD", "state", "FAILED", "EXIT_CODE", "echo hi").containsPattern("exit code\\s+3");
        Run events = jobctl("events", id.toString());
        assertThat(events.out().lines()).hasSize(4).first().asString().startsWith("AT").contains("FROM", "TO", "REASON");
        assertThat(events.out()).containsPattern("QUEUED\\s+SCHEDULED\\s+step 2");
        Run attempts = jobctl("attempts", id.toString());
        assertThat(attempts.out()).contains("m-1", "m-2", "EXIT_CODE").doesNotContain("REPLICA");
        api.on("GET", jobPath + "/attempts", ok("""
                {"items":[{"attempt":1,"machineId":"m-1","state":"RUNNING","replica":0,"worldSize":2},
                          {"attempt":1,"machineId":"m-2","state":"RUNNING","replica":1,"worldSize":2}]}"""));
        assertThat(jobctl("attempts", id.toString()).out()).as("a gang's replicas, by rank")
                .containsPattern("ATTEMPT\\s+REPLICA\\s+MACHINE").containsPattern("1\\s+1/2\\s+m-2");
        Run machines = jobctl("machines");
        assertThat(machines.code()).isZero();
        assertThat(machines.out()).contains("gpu-1", "READY", "4/32", "16384/131072", "1/8", "H100");
    }

    @Test
    void aTableShowsControlCharactersItsCellsCarryRatherThanSendingThemToTheTerminal() {
        // a tenant's job whose command would set the clipboard of the admin's terminal that shows it (OSC 52), then
        // clear the screen
        api.on("GET", jobPath, ok(StubApi.job(id, "QUEUED", 0).replace("[\"echo\",\"hi\"]",
                "[\"echo\",\"\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u001b[2J\\n\\u009b\"]")));

        Run get = jobctl("get", id.toString());
        assertThat(get.code()).isZero();
        assertThat(get.out()).doesNotContain("\u001b", "\u0007", "\u009b").contains("echo \\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\x0a\\x9b");
        assertThat(get.out().lines().filter(l -> l.startsWith("command"))).hasSize(1);
    }

    @Test
    void machinesAreDrainedCordonedAndUncordonedWithTheReasonSent() {
        String drained = """
                {"id":"gpu-1","region":"us-east-1","status":"DRAINING","statusReason":"drained by admin: bad fan"}""";
        api.on("POST", "/api/v1/machines/gpu-1/drain", ok(drained));
        api.on("POST", "/api/v1/machines/gpu-1/cordon", ok(drained.replace("DRAINING", "CORDONED")));
        api.on("POST", "/api/v1/machines/gpu-1/uncordon", Answer.problem(409, "cannot uncordon gpu-1: the machine is LOST"));
        Run drain = jobctl("machines", "drain", "gpu-1", "--reason", "bad fan");
        assertThat(drain.code()).isZero();
        assertThat(drain.out()).isEqualTo("gpu-1 DRAINING: drained by admin: bad fan\n");
        assertThat(MODELS.readTree(api.calls("POST", "/api/v1/machines/gpu-1/drain").getFirst().body()).path("reason")
                .asString()).isEqualTo("bad fan");
        assertThat(jobctl("machines", "cordon", "gpu-1", "--reason", "r").out()).startsWith("gpu-1 CORDONED");
        Run refused = jobctl("machines", "uncordon", "gpu-1", "--reason", "r");
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err()).contains("the machine is LOST");
        assertThat(jobctl("machines", "drain", "gpu-1").code()).as("a reason is required").isNotZero();
    }

    @Test
    void listPagesWithAllAndTellsOfTheNextPageWithout() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        api.on("GET", "/api/v1/jobs", ok("{\"items\":[" + StubApi.job(a, "QUEUED", 0) + "],\"nextPageToken\":\"p2\"}"),
                ok("{\"items\":[" + StubApi.job(b, "QUEUED", 0) + "]}"));
        Run all = jobctl("list", "--state", "QUEUED", "--limit", "1", "--all");
        assertThat(all.code()).isZero();
        assertThat(all.out()).contains(a.toString(), b.toString());
        assertThat(all.err()).isEmpty();
        assertThat(api.calls("GET", "/api/v1/jobs")).extracting(StubApi.Call::query)
                .containsExactly("state=QUEUED&limit=1", "state=QUEUED&limit=1&pageToken=p2");

        api.on("GET", "/api/v1/jobs", ok("{\"items\":[" + StubApi.job(a, "QUEUED", 0) + "],\"nextPageToken\":\"p2\"}"));
        Run first = jobctl("list");
        assertThat(first.out()).contains(a.toString()).doesNotContain(b.toString());
        assertThat(first.err()).contains("--page-token p2");

        api.on("GET", "/api/v1/jobs", ok("{\"items\":[" + StubApi.job(a, "QUEUED", 0) + "],\"nextPageToken\":\"p2\"}"),
                ok("{\"items\":[" + StubApi.job(b, "QUEUED", 0) + "]}"));
        JsonNode merged = MODELS.readTree(jobctl("list", "--all", "-o", "json").out());
        assertThat(merged.path("items")).extracting(j -> j.path("id").asString()).containsExactly(a.toString(), b.toString());
    }

    @Test
    void cancelSaysWhereTheJobIs() {
        api.on("POST", jobPath + "/cancel", Answer.json(202, StubApi.job(id, "CANCELED", 0)));
        assertThat(jobctl("cancel", id.toString()).out()).isEqualTo(id + " CANCELED\n");
        api.on("POST", jobPath + "/cancel", Answer.json(202, StubApi.job(id, "RUNNING", 1).replace(
                "\"cancelRequested\":false", "\"cancelRequested\":true")));
        assertThat(jobctl("cancel", id.toString()).out()).isEqualTo(id + " RUNNING, cancel requested\n");
    }

    @Test
    void logsPrintTheLatestAttemptsOutputOrTheOneAsked() {
        api.on("GET", jobPath, ok(StubApi.job(id, "RUNNING", 2)));
        api.on("GET", jobPath + "/attempts/2/logs", ok("{\"stdout\":\"second out\\n\",\"stderr\":\"second err\\n\"}"));
        api.on("GET", jobPath + "/attempts/1/logs", ok("{\"stdout\":\"first\\n\"}"));
        Run latest = jobctl("logs", id.toString());
        assertThat(latest.code()).isZero();
        assertThat(latest.out()).isEqualTo("second out\n");
        assertThat(latest.err()).isEqualTo("second err\n");
        Run first = jobctl("logs", id.toString(), "-a", "1");
        assertThat(first.out()).isEqualTo("first\n");
        assertThat(first.err()).isEmpty();
        Run rank2 = jobctl("logs", id.toString(), "-a", "1", "--replica", "2");
        assertThat(rank2.code()).isZero();
        assertThat(api.calls("GET", jobPath + "/attempts/1/logs")).extracting(StubApi.Call::query)
                .as("a gang's replica is asked by its rank").contains("replica=2");

        api.on("GET", jobPath + "/attempts/1/logs", ok("{\"stdout\":\"\",\"stderr\":\"\"}"));
        api.on("GET", jobPath + "/attempts", ok("{\"items\":[{\"attempt\":1,\"machineId\":\"m\",\"state\":\"RUNNING\","
                + "\"scheduledAt\":\"2026-12-05T06:00:00Z\",\"startedAt\":\"2026-12-05T06:00:01Z\",\"finishedAt\":null}]}"));
        Run running = jobctl("logs", id.toString(), "-a", "1");
        assertThat(running.code()).isZero();
        assertThat(running.out()).isEmpty();
        assertThat(running.err()).as("not silence: the output comes with the end, or live with -f")
                .isEqualTo("attempt 1 of job " + id + " has not ended: its output so far is shown with -f\n");

        api.on("GET", jobPath, ok(StubApi.job(id, "QUEUED", 0)));
        Run none = jobctl("logs", id.toString());
        assertThat(none.code()).isEqualTo(JobCtl.NOT_FOUND);
        assertThat(none.err()).contains("no attempt yet");
    }

    @Test
    void watchPrintsEachChangeOnceAndExitsWithTheOutcome() {
        for (String[] outcome : new String[][] {{"SUCCEEDED", "0"}, {"FAILED", "1"}, {"CANCELED", "2"}}) {
            String end = outcome[0];
            api.on("GET", jobPath + "/events", ok(StubApi.events("SUBMITTED")), ok(StubApi.events("SUBMITTED", "QUEUED")),
                    ok(StubApi.events("SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING", end)));
            api.on("GET", jobPath, ok(StubApi.job(id, end, 1)));
            Run watch = jobctl("watch", id.toString(), "--interval", "5ms");
            assertThat(watch.code()).as(end + ": " + watch.err()).isEqualTo(Integer.parseInt(outcome[1]));
            List<String> lines = watch.out().lines().toList();
            assertThat(lines).hasSize(6);
            assertThat(lines.get(0)).contains("SUBMITTED").doesNotContain("->");
            assertThat(lines.get(1)).contains("SUBMITTED -> QUEUED", "step 1");
            assertThat(lines.get(4)).contains("RUNNING -> " + end);
            assertThat(lines.get(5)).startsWith("job " + id + " " + end);
            if (end.equals("FAILED")) {
                assertThat(lines.get(5)).endsWith("FAILED: EXIT_CODE (exit code 3)");
            }
        }
    }

    @Test
    void watchAsJsonPrintsOneEventALine() {
        api.on("GET", jobPath + "/events", ok(StubApi.events("SUBMITTED", "QUEUED", "SCHEDULED", "SUCCEEDED")));
        api.on("GET", jobPath, ok(StubApi.job(id, "SUCCEEDED", 1)));
        Run watch = jobctl("watch", id.toString(), "-o", "json");
        assertThat(watch.code()).isZero();
        assertThat(watch.out().lines().map(MODELS::readTree).map(e -> e.path("to").asString()))
                .containsExactly("SUBMITTED", "QUEUED", "SCHEDULED", "SUCCEEDED");
    }

    @Test
    void watchGivesUpAfterForWithExitOne() {
        api.on("GET", jobPath + "/events", ok(StubApi.events("SUBMITTED", "QUEUED")));
        Run watch = jobctl("watch", id.toString(), "--interval", "5ms", "--for", "50ms");
        assertThat(watch.code()).isEqualTo(JobCtl.FAILED);
        assertThat(watch.err()).contains("has not ended");
    }

    @Test
    void httpErrorsMapToTheDocumentedExitCodes() {
        int[][] cases = {{400, JobCtl.USAGE}, {413, JobCtl.USAGE}, {401, JobCtl.UNAUTHORIZED}, {403, JobCtl.UNAUTHORIZED},
                {404, JobCtl.NOT_FOUND}, {409, JobCtl.CONFLICT}, {429, JobCtl.UNAVAILABLE}, {500, JobCtl.UNAVAILABLE},
                {503, JobCtl.UNAVAILABLE}, {418, JobCtl.FAILED}};
        for (int[] c : cases) {
            api.on("GET", jobPath, Answer.problem(c[0], "because " + c[0]));
            Run r = jobctl("get", id.toString());
            assertThat(r.code()).as("HTTP " + c[0]).isEqualTo(c[1]);
            assertThat(r.err()).as("HTTP " + c[0]).startsWith("jobctl: " + c[0]).contains("because " + c[0]);
            assertThat(r.out()).isEmpty();
        }
    }

    @Test
    void aRejectedSpecNamesTheFields() {
        api.on("POST", "/api/v1/jobs", Answer.json(400, """
                {"type":"about:blank","title":"Bad Request","status":400,"detail":"invalid job spec",
                 "errors":[{"field":"name","message":"1-128 of [A-Za-z0-9._-]"},{"field":"resources.cpu","message":"must be > 0"}]}"""));
        Run r = jobctl("submit", "--name", "bad name", "--cpu", "0", "--memory", "64", "--", "true");
        assertThat(r.code()).isEqualTo(JobCtl.USAGE);
        assertThat(r.err()).contains("invalid job spec", "  name: 1-128", "  resources.cpu: must be > 0");
    }

    @Test
    void notAJobIdIsNotFoundWithoutACall() {
        Run r = jobctl("get", "not-a-uuid");
        assertThat(r.code()).isEqualTo(JobCtl.NOT_FOUND);
        assertThat(r.err()).contains("not-a-uuid");
        assertThat(api.calls()).isEmpty();
    }

    @Test
    void anUnreachableApiIsUnavailable() {
        String url = api.url();
        api.close();
        for (String[] command : new String[][] {{"get", id.toString()}, {"list"}, {"machines"}, {"watch", id.toString()}}) {
            List<String> args = new ArrayList<>(List.of("--url", url));
            args.addAll(List.of(command));
            Run r = run(args.toArray(String[]::new));
            assertThat(r.code()).as(command[0]).isEqualTo(JobCtl.UNAVAILABLE);
            assertThat(r.err()).as(command[0]).contains("cannot reach the API at " + url + " (--url or JOBS_URL): nothing answers there");
        }
    }
}
