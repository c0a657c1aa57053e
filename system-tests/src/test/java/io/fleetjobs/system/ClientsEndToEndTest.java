package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.jobctl.JobCtl;
import io.fleetjobs.sdk.FleetJobsClient;
import io.fleetjobs.sdk.model.Attempt;
import io.fleetjobs.sdk.model.AttemptState;
import io.fleetjobs.sdk.model.Event;
import io.fleetjobs.sdk.model.Execution;
import io.fleetjobs.sdk.model.Job;
import io.fleetjobs.sdk.model.JobPage;
import io.fleetjobs.sdk.model.JobSpec;
import io.fleetjobs.sdk.model.JobState;
import io.fleetjobs.sdk.model.NewTenant;
import io.fleetjobs.sdk.model.Resources;
import io.fleetjobs.sdk.model.RetryPolicy;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.web.client.HttpClientErrorException;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The SDK and jobctl against the running platform: real services, a real agent, real job processes. */
class ClientsEndToEndTest {
    private static final Duration WITHIN = Duration.ofSeconds(60);
    private static Platform platform;
    private static String token;
    private static FleetJobsClient fleet;

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of());
        var admin = FleetJobsClient.connect(platform.clientUrl(), Platform.ADMIN_TOKEN);
        admin.admin().createTenant(new NewTenant().name("clients"));
        token = admin.admin().issueApiKey("clients", Map.of()).getKey();
        fleet = FleetJobsClient.connect(platform.clientUrl(), token).withPollInterval(Duration.ofMillis(100));
        platform.agent("clients-machine-1", platform.schedulerPort());
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    private static JobSpec spec(String name, String script) {
        return new JobSpec().name(name).resources(new Resources().cpu(new BigDecimal("0.5")).memoryMb(64L))
                .execution(new Execution().command(List.of("sh", "-c", script)))
                .retry(new RetryPolicy().maxAttempts(1));
    }

    @Test
    void theSdkSubmitsFollowsAndReadsAJob() throws Exception {
        Job job = fleet.submit(spec("sdk-hello", "echo hi; echo oops >&2"), "sdk-hello-1");
        assertThat(job.getState()).as("admitted in the submit's transaction").isEqualTo(JobState.QUEUED);
        assertThat(job.getTenant()).isEqualTo("clients");
        assertThat(job.getQueue()).isEqualTo("default");
        assertThat(fleet.submit(spec("sdk-hello", "echo hi; echo oops >&2"), "sdk-hello-1").getId())
                .as("the same idempotency key and spec").isEqualTo(job.getId());

        List<JobState> seen = new ArrayList<>();
        Job done = fleet.watch(job.getId(), WITHIN, event -> seen.add(event.getTo()));
        assertThat(done.getState()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.getExitCode()).isZero();
        // RUNNING may be skipped: a start report overtaken by the end report goes SCHEDULED -> SUCCEEDED
        assertThat(seen).startsWith(JobState.SUBMITTED, JobState.QUEUED, JobState.SCHEDULED).endsWith(JobState.SUCCEEDED)
                .doesNotHaveDuplicates();
        assertThat(fleet.get(job.getId()).getFinishedAt()).isNotNull();

        List<Attempt> attempts = fleet.jobs().listAttempts(job.getId()).getItems();
        assertThat(attempts).singleElement().satisfies(a -> {
            assertThat(a.getAttempt()).isEqualTo(1);
            assertThat(a.getMachineId()).isEqualTo("clients-machine-1");
            assertThat(a.getState()).isEqualTo(AttemptState.SUCCEEDED);
        });
        List<Event> events = fleet.jobs().listEvents(job.getId(), null, null, null).getItems();
        assertThat(events.getFirst().getFrom()).isNull();
        assertThat(events.getLast().getTo()).isEqualTo(JobState.SUCCEEDED);
        var logs = fleet.jobs().getAttemptLogs(job.getId(), 1, null, null, null, null, null);
        assertThat(logs.getStdout()).isEqualTo("hi\n");
        assertThat(logs.getStderr()).isEqualTo("oops\n");
    }

    @Test
    void theSdkPagesThroughListingsAndCancels() {
        FleetJobsClient pager = FleetJobsClient.connect(platform.clientUrl(), newTenantKey("pages"));
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(pager.submit(spec("page-" + i, "sleep 60")).getId());
        }
        JobPage first = pager.jobs().listJobs(null, 2, null, null, null, null);
        assertThat(first.getItems()).hasSize(2);
        assertThat(first.getNextPageToken()).isNotNull();
        JobPage second = pager.jobs().listJobs(null, 2, first.getNextPageToken(), null, null, null);
        assertThat(second.getItems()).hasSize(2).doesNotContainAnyElementsOf(first.getItems());
        assertThat(pager.listAll(null, 2).map(Job::getId)).containsExactlyInAnyOrderElementsOf(ids);

        for (UUID id : ids) {
            Job canceled = pager.cancel(id);
            assertThat(canceled.getState() == JobState.CANCELED || canceled.getCancelRequested()).as(canceled.toString()).isTrue();
        }
        await().atMost(WITHIN).until(() -> pager.listAll(JobState.CANCELED, 500).count() == ids.size());
        assertThat(pager.cancel(ids.getFirst()).getState()).as("cancel again").isEqualTo(JobState.CANCELED);

        assertThatThrownBy(() -> pager.get(UUID.randomUUID())).isInstanceOf(HttpClientErrorException.NotFound.class)
                .satisfies(e -> assertThat(FleetJobsClient.problem((HttpClientErrorException) e))
                        .hasValueSatisfying(p -> assertThat(p.getStatus()).isEqualTo(404)));
        assertThatThrownBy(() -> pager.submit(new JobSpec().name("no resources")))
                .isInstanceOf(HttpClientErrorException.BadRequest.class)
                .satisfies(e -> assertThat(FleetJobsClient.problem((HttpClientErrorException) e).orElseThrow().getErrors())
                        .extracting(f -> f.getField()).contains("name", "resources", "execution"));
    }

    @Test
    void jobctlSubmitsAndWatchesAJobToSuccess() {
        Run submit = jobctl("submit", "--name", "cli-hello", "--cpu", "0.5", "--memory", "64", "--label", "team=cli",
                "--env", "GREETING=hello", "--", "sh", "-c", "echo $GREETING");
        assertThat(submit.code()).as(submit.err()).isZero();
        String id = submit.out().strip();
        assertThat(UUID.fromString(id)).isNotNull();

        Run watch = jobctl("watch", id, "--interval", "100ms");
        assertThat(watch.code()).as(watch.out() + watch.err()).isEqualTo(JobCtl.OK);
        assertThat(watch.out()).contains("SUBMITTED", "QUEUED -> SCHEDULED", "-> SUCCEEDED", "job " + id + " SUCCEEDED");

        Run logs = jobctl("logs", id);
        assertThat(logs.code()).isZero();
        assertThat(logs.out()).isEqualTo("hello\n");

        Run get = jobctl("get", id, "-o", "json");
        assertThat(get.code()).isZero();
        JsonNode job = JsonMapper.builder().build().readTree(get.out());
        assertThat(job.path("state").asString()).isEqualTo("SUCCEEDED");
        assertThat(job.path("labels").path("team").asString()).isEqualTo("cli");

        Run list = jobctl("list", "--state", "SUCCEEDED", "--all");
        assertThat(list.code()).isZero();
        assertThat(list.out()).contains(id, "cli-hello");
        assertThat(jobctl("events", id).out()).contains("RUNNING", "SUCCEEDED");
        assertThat(jobctl("attempts", id).out()).contains("clients-machine-1");
        Run cancel = jobctl("cancel", id);
        assertThat(cancel.code()).as("cancel a SUCCEEDED job").isEqualTo(JobCtl.CONFLICT);
    }

    @Test
    void jobctlReportsAFailedJobWithExitCodeOne() throws Exception {
        Path file = Files.createTempFile(Path.of("target"), "failing", ".yaml");
        Files.writeString(file, """
                name: cli-failing
                resources: {cpu: 0.5, memoryMb: 64}
                execution:
                  command: [sh, -c, "exit 3"]
                retry:
                  maxAttempts: 1
                """);
        Run submit = jobctl("submit", "-f", file.toString());
        assertThat(submit.code()).as(submit.err()).isZero();
        Run watch = jobctl("watch", submit.out().strip(), "--interval", "100ms");
        assertThat(watch.code()).as(watch.out()).isEqualTo(JobCtl.FAILED);
        assertThat(watch.out()).contains("FAILED: EXIT_CODE (exit code 3)");
    }

    @Test
    void jobctlExitCodesTellNotFoundUnauthorizedAndUsage() {
        Run missing = jobctl("get", UUID.randomUUID().toString());
        assertThat(missing.code()).isEqualTo(JobCtl.NOT_FOUND);
        assertThat(missing.err()).contains("404");

        Run badToken = run("--url", platform.clientUrl(), "--token", "not-a-key", "list");
        assertThat(badToken.code()).isEqualTo(JobCtl.UNAUTHORIZED);

        assertThat(jobctl("submit", "--cpu", "1").code()).as("no name, memory, command").isEqualTo(JobCtl.USAGE);
        assertThat(jobctl("list", "--bogus").code()).isEqualTo(JobCtl.USAGE);
        Run invalid = jobctl("submit", "--name", "bad name", "--cpu", "1", "--memory", "64", "--", "true");
        assertThat(invalid.code()).as("a spec the API rejects").isEqualTo(JobCtl.USAGE);
        assertThat(invalid.err()).contains("name:");
    }

    @Test
    void jobctlListsTheMachinesForAnAdminOnly() {
        await().atMost(WITHIN).until(() -> run("--url", platform.clientUrl(), "--token", Platform.ADMIN_TOKEN, "machines")
                .out().contains("clients-machine-1"));
        Run machines = run("--url", platform.clientUrl(), "--token", Platform.ADMIN_TOKEN, "machines");
        assertThat(machines.code()).as(machines.err()).isZero();
        assertThat(machines.out()).contains("ID", "STATUS", "clients-machine-1", "READY");
        Run json = run("--url", platform.clientUrl(), "--token", Platform.ADMIN_TOKEN, "machines", "-o", "json");
        assertThat(json.code()).isZero();
        assertThat(JsonMapper.builder().build().readTree(json.out()).path("items"))
                .extracting(m -> m.path("id").asString()).contains("clients-machine-1");
        Run asUser = jobctl("machines");
        assertThat(asUser.code()).as("a user's key").isEqualTo(JobCtl.UNAUTHORIZED);
        assertThat(asUser.err()).contains("403");
    }

    @Test
    void jobctlWatchAsJsonAndEventsAndAttemptsAsTheApisJson() {
        Run submit = jobctl("-o", "json", "submit", "--name", "cli-json", "--cpu", "0.5", "--memory", "64",
                "--max-attempts", "1", "--", "sh", "-c", "echo json");
        assertThat(submit.code()).as(submit.err()).isZero();
        String id = JsonMapper.builder().build().readTree(submit.out()).path("id").asString();
        Run watch = jobctl("watch", id, "--interval", "100ms", "-o", "json");
        assertThat(watch.code()).as(watch.err()).isZero();
        List<String> states = watch.out().lines().map(line -> JsonMapper.builder().build().readTree(line).path("to").asString())
                .toList();
        assertThat(states).startsWith("SUBMITTED").endsWith("SUCCEEDED");
        JsonNode events = JsonMapper.builder().build().readTree(jobctl("events", id, "-o", "json").out());
        assertThat(events.path("items")).extracting(e -> e.path("to").asString()).containsExactlyElementsOf(states);
        JsonNode attempts = JsonMapper.builder().build().readTree(jobctl("attempts", id, "-o", "json").out());
        assertThat(attempts.path("items").get(0).path("machineId").asString()).isEqualTo("clients-machine-1");
        JsonNode logs = JsonMapper.builder().build().readTree(jobctl("logs", id, "-o", "json").out());
        assertThat(logs.path("stdout").asString()).isEqualTo("json\n");
    }

    @Test
    void jobctlFollowsEveryChangeOfItsTenantsJobsAsTheyHappenAndNoOtherTenants() throws Exception {
        FleetJobsClient other = FleetJobsClient.connect(platform.clientUrl(), newTenantKey("clients-neighbour"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Thread follow = Thread.ofVirtual().start(() -> {
            CommandLine cmd = JobCtl.commandLine();
            cmd.setOut(new PrintWriter(out, true));
            cmd.setErr(new PrintWriter(err, true));
            cmd.execute("--url", platform.clientUrl(), "--token", token, "events", "-f", "--for", "60s");
        });
        // the stream gives what happens after it opened: submit until one of ours is seen
        List<String> ours = new ArrayList<>();
        List<String> theirs = new ArrayList<>();
        await().atMost(WITHIN).pollInterval(Duration.ofSeconds(2)).until(() -> {
            theirs.add(other.submit(spec("neighbour", "true")).getId().toString());
            ours.add(fleet.submit(spec("followed", "true")).getId().toString());
            return ours.stream().anyMatch(id -> out.toString().contains(id + "  SUBMITTED  "));
        });
        // one submitted after the stream opened: all its changes come
        String seen = ours.stream().filter(id -> out.toString().contains(id + "  SUBMITTED  ")).findFirst().orElseThrow();
        await().atMost(WITHIN).until(() -> out.toString().contains(seen + "  RUNNING -> SUCCEEDED"));

        List<String> lines = out.toString().lines().filter(l -> l.contains(seen)).toList();
        assertThat(lines).as(out.toString()).hasSize(5);
        assertThat(lines.getFirst()).contains(seen + "  SUBMITTED  awaiting admission");
        assertThat(lines).extracting(l -> l.split("  ")[2]).containsExactly("SUBMITTED", "SUBMITTED -> QUEUED",
                "QUEUED -> SCHEDULED", "SCHEDULED -> RUNNING", "RUNNING -> SUCCEEDED");
        assertThat(theirs).noneMatch(id -> out.toString().contains(id));
        assertThat(err.toString()).isEmpty();
        follow.interrupt();

        assertThat(jobctl("events").code()).as("neither a job nor -f").isEqualTo(JobCtl.USAGE);
        Run both = jobctl("events", seen, "-f");
        assertThat(both.code()).isEqualTo(JobCtl.USAGE);
        assertThat(both.err()).contains("jobctl watch " + seen);
    }

    @Test
    void jobctlShowsItsTenantAndWhatItsJobsHold() {
        Run tenant = jobctl("tenant");
        assertThat(tenant.code()).as(tenant.err()).isZero();
        assertThat(tenant.out()).startsWith("tenant clients, weight 1, ").contains("RESOURCE", "HELD", "QUOTA", "gpuCount");
        JsonNode json = JsonMapper.builder().build().readTree(jobctl("tenant", "-o", "json").out());
        assertThat(json.path("name").asString()).isEqualTo("clients");
        assertThat(json.path("usage").path("jobs").isIntegralNumber()).as(json.toString()).isTrue();
    }

    private static String newTenantKey(String name) {
        var admin = FleetJobsClient.connect(platform.clientUrl(), Platform.ADMIN_TOKEN).admin();
        admin.createTenant(new NewTenant().name(name));
        return admin.issueApiKey(name, Map.of()).getKey();
    }

    record Run(int code, String out, String err) {
    }

    private static Run jobctl(String... args) {
        List<String> all = new ArrayList<>(List.of("--url", platform.clientUrl(), "--token", token));
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
}
