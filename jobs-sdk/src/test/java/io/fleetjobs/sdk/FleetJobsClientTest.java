package io.fleetjobs.sdk;

import static io.fleetjobs.sdk.testing.StubApi.Answer.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.sdk.model.Event;
import io.fleetjobs.sdk.model.Execution;
import io.fleetjobs.sdk.model.Job;
import io.fleetjobs.sdk.model.JobSpec;
import io.fleetjobs.sdk.model.JobState;
import io.fleetjobs.sdk.model.Resources;
import io.fleetjobs.sdk.testing.StubApi;
import io.fleetjobs.sdk.testing.StubApi.Answer;
import java.io.ByteArrayOutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClientResponseException;

/** FleetJobsClient, the SDK's hand-written layer, against a stub of the API: no platform. */
class FleetJobsClientTest {
    private final StubApi api = new StubApi();
    private final UUID id = UUID.randomUUID();

    @AfterEach
    void stop() {
        api.close();
    }

    private FleetJobsClient client() {
        return FleetJobsClient.connect(api.url() + "/", "fj_token").withPollInterval(Duration.ofMillis(5));
    }

    @Test
    void submitSendsTheSpecTheTokenAndTheIdempotencyKey() {
        api.on("POST", "/api/v1/jobs", Answer.json(201, StubApi.job(id, "SUBMITTED", 0)));
        Job job = client().submit(new JobSpec().name("hello").resources(new Resources().cpu(new BigDecimal("0.5")).memoryMb(64L))
                .execution(new Execution().command(List.of("echo", "hi"))), "key-1");
        assertThat(job.getId()).isEqualTo(id);
        assertThat(job.getState()).isEqualTo(JobState.SUBMITTED);

        StubApi.Call call = api.calls("POST", "/api/v1/jobs").getFirst();
        assertThat(call.header("Authorization")).isEqualTo("Bearer fj_token");
        assertThat(call.header("Idempotency-Key")).isEqualTo("key-1");
        assertThat(call.header("User-Agent")).isEqualTo("fleetjobs-sdk");
        assertThat(call.body()).contains("\"name\":\"hello\"", "\"cpu\":0.5", "\"memoryMb\":64", "\"command\":[\"echo\",\"hi\"]");
    }

    @Test
    void withoutATokenNoAuthorizationIsSent() {
        api.on("GET", "/api/v1/jobs/" + id, ok(StubApi.job(id, "QUEUED", 0)));
        FleetJobsClient.connect(api.url(), " ").get(id);
        assertThat(api.calls().getFirst().header("Authorization")).isNull();
    }

    @Test
    void listAllFollowsPageTokensAndSkipsEmptyPages() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        UUID c = UUID.randomUUID();
        api.on("GET", "/api/v1/jobs",
                ok("{\"items\":[" + StubApi.job(a, "RUNNING", 1) + "," + StubApi.job(b, "RUNNING", 1) + "],\"nextPageToken\":\"p2\"}"),
                ok("{\"items\":[],\"nextPageToken\":\"p3\"}"),
                ok("{\"items\":[" + StubApi.job(c, "RUNNING", 1) + "]}"));
        assertThat(client().listAll(JobState.RUNNING, 2).map(Job::getId)).containsExactly(a, b, c);
        assertThat(api.calls("GET", "/api/v1/jobs")).extracting(StubApi.Call::query)
                .containsExactly("state=RUNNING&limit=2", "state=RUNNING&limit=2&pageToken=p2", "state=RUNNING&limit=2&pageToken=p3");
    }

    @Test
    void listAllFetchesTheFirstPageOnlyWhenRead() {
        api.on("GET", "/api/v1/jobs", ok("{\"items\":[]}"));
        var stream = client().listAll(null, 50);
        assertThat(stream.findAny()).isEmpty();
        assertThat(api.calls()).hasSize(1);
    }

    @Test
    void watchReportsEachTransitionOnceInOrderAndReturnsTheEndedJob() throws Exception {
        api.on("GET", "/api/v1/jobs/" + id + "/events",
                ok("{\"items\":[]}"),
                ok(StubApi.events("SUBMITTED", "QUEUED")),
                ok(StubApi.events("SUBMITTED", "QUEUED")),
                ok(StubApi.events("SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING")),
                ok(StubApi.events("SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING", "SUCCEEDED")));
        api.on("GET", "/api/v1/jobs/" + id, ok(StubApi.job(id, "SUCCEEDED", 1)));
        List<JobState> seen = new ArrayList<>();
        Job done = client().watch(id, Duration.ofMinutes(1), e -> seen.add(e.getTo()));
        assertThat(done.getState()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.getExitCode()).isZero();
        assertThat(seen).containsExactly(JobState.SUBMITTED, JobState.QUEUED, JobState.SCHEDULED, JobState.RUNNING,
                JobState.SUCCEEDED);
        assertThat(api.calls("GET", "/api/v1/jobs/" + id + "/events")).hasSize(5);
    }

    @Test
    void watchReadsTheLiveStreamAndResumesFromTheLastIdWithoutRepeating() throws Exception {
        api.on("GET", "/api/v1/jobs/" + id + "/events",
                new Answer(200, "text/event-stream", "retry: 1000\n\n" + sse(11, 1, null, "SUBMITTED") + ": keep-alive\n\n"
                        + sse(12, 2, "SUBMITTED", "QUEUED")),
                new Answer(200, "text/event-stream", sse(12, 2, "SUBMITTED", "QUEUED") + sse(15, 3, "QUEUED", "SCHEDULED")
                        + sse(16, 4, "SCHEDULED", "SUCCEEDED")));
        api.on("GET", "/api/v1/jobs/" + id, ok(StubApi.job(id, "SUCCEEDED", 1)));
        List<JobState> seen = new ArrayList<>();
        Job done = client().watch(id, Duration.ofMinutes(1), e -> seen.add(e.getTo()));
        assertThat(done.getState()).isEqualTo(JobState.SUCCEEDED);
        assertThat(seen).as("each change once, in order, across the dropped connection")
                .containsExactly(JobState.SUBMITTED, JobState.QUEUED, JobState.SCHEDULED, JobState.SUCCEEDED);
        var calls = api.calls("GET", "/api/v1/jobs/" + id + "/events");
        assertThat(calls).hasSize(2);
        assertThat(calls.getFirst().query()).isEqualTo("follow=true");
        assertThat(calls.getFirst().header("Accept")).isEqualTo("text/event-stream");
        assertThat(calls.getFirst().header("Authorization")).isEqualTo("Bearer fj_token");
        assertThat(calls.getFirst().header("Last-Event-ID")).isNull();
        assertThat(calls.get(1).header("Last-Event-ID")).isEqualTo("12");
    }

    private String sse(long position, long version, String from, String to) {
        return sse(id, position, version, from, to);
    }

    private static String sse(UUID job, long position, long version, String from, String to) {
        return "id: " + position + "\ndata: {\"jobId\":\"" + job + "\",\"version\":" + version
                + ",\"at\":\"2026-01-01T00:00:0" + version + "Z\",\"from\":" + (from == null ? "null" : "\"" + from + "\"")
                + ",\"to\":\"" + to + "\",\"reason\":\"r\"}\n\n";
    }

    @Test
    void followEventsGivesEveryJobsChangesOnceAcrossADropUntilTheCallerHasHadEnough() throws Exception {
        UUID other = UUID.randomUUID();
        api.on("GET", "/api/v1/events",
                new Answer(200, "text/event-stream", "retry: 1000\n\n" + sse(id, 11, 1, null, "SUBMITTED")
                        + sse(other, 12, 3, "QUEUED", "SCHEDULED")),
                new Answer(200, "text/event-stream", sse(other, 12, 3, "QUEUED", "SCHEDULED")
                        + sse(id, 14, 2, "SUBMITTED", "QUEUED") + sse(other, 15, 4, "SCHEDULED", "RUNNING")
                        + sse(id, 16, 3, "QUEUED", "SCHEDULED")));
        List<String> seen = new ArrayList<>();
        client().followEvents(10L, Duration.ofMinutes(1), e -> {
            seen.add((e.getJobId().equals(id) ? "mine " : "other ") + e.getTo());
            return seen.size() < 4;
        });
        assertThat(seen).as("each job's change once, in order, across the dropped connection; none after the last wanted")
                .containsExactly("mine SUBMITTED", "other SCHEDULED", "mine QUEUED", "other RUNNING");
        var calls = api.calls("GET", "/api/v1/events");
        assertThat(calls).hasSize(2);
        assertThat(calls.getFirst().query()).isEqualTo("follow=true&since=10");
        assertThat(calls.get(1).header("Last-Event-ID")).isEqualTo("12");
    }

    @Test
    void followEventsSaysWhyTheServerRefusedTheStream() {
        api.on("GET", "/api/v1/events", Answer.problem(429, "tenant t has 32 event streams open"));
        assertThatThrownBy(() -> client().followEvents(null, Duration.ofMinutes(1), e -> true))
                .isInstanceOfSatisfying(RestClientResponseException.class, e -> {
                    assertThat(e.getStatusCode().value()).isEqualTo(429);
                    assertThat(e.getResponseBodyAsString()).contains("32 event streams");
                });
    }

    @Test
    void watchGivesUpAfterItsTimeout() {
        api.on("GET", "/api/v1/jobs/" + id + "/events", ok(StubApi.events("SUBMITTED", "QUEUED")));
        List<Event> seen = new ArrayList<>();
        assertThatThrownBy(() -> client().watch(id, Duration.ofMillis(30), seen::add)).isInstanceOf(TimeoutException.class)
                .hasMessageContaining(id.toString());
        assertThat(seen).extracting(Event::getTo).containsExactly(JobState.SUBMITTED, JobState.QUEUED);
    }

    @Test
    void errorsCarryTheirProblem() {
        api.on("POST", "/api/v1/jobs", Answer.json(400, """
                {"type":"about:blank","title":"Bad Request","status":400,"detail":"invalid job spec",
                 "errors":[{"field":"resources.cpu","message":"must be > 0"}]}"""));
        api.on("POST", "/api/v1/jobs/" + id + "/cancel", new Answer(502, "text/html", "<html>bad gateway</html>"));
        var client = client();

        assertThatThrownBy(() -> client.submit(new JobSpec().name("x"))).isInstanceOfSatisfying(HttpClientErrorException.BadRequest.class,
                e -> assertThat(FleetJobsClient.problem(e)).hasValueSatisfying(p -> {
                    assertThat(p.getStatus()).isEqualTo(400);
                    assertThat(p.getErrors()).singleElement().satisfies(f -> assertThat(f.getField()).isEqualTo("resources.cpu"));
                }));
        assertThatThrownBy(() -> client.get(id)).isInstanceOfSatisfying(HttpClientErrorException.NotFound.class,
                e -> assertThat(FleetJobsClient.problem(e)).hasValueSatisfying(p -> assertThat(p.getStatus()).isEqualTo(404)));
        assertThatThrownBy(() -> client.cancel(id)).isInstanceOfSatisfying(HttpServerErrorException.class,
                e -> assertThat(FleetJobsClient.problem(e)).as("not a problem document").isEmpty());
    }

    @Test
    void anUnreachableServerIsAResourceAccessException() {
        String url = api.url();
        api.close();
        assertThatThrownBy(() -> FleetJobsClient.connect(url, "t").get(id)).isInstanceOf(ResourceAccessException.class);
    }

    @Test
    void terminalStatesAndPollIntervals() {
        assertThat(List.of(JobState.values())).filteredOn(FleetJobsClient::isTerminal)
                .containsExactlyInAnyOrder(JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELED);
        assertThatThrownBy(() -> client().withPollInterval(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FleetJobsClient.connect(null, "t")).isInstanceOf(NullPointerException.class);
    }

    /** A base64 log event as job-service sends it with {@code encoding=base64}. */
    private static String logEvent(byte[] bytes, long offset) {
        return "data: " + Base64.getEncoder().encodeToString(bytes) + "\nid: " + offset + "\n\n";
    }

    @Test
    void followLogsGivesTheBytesAsPrintedAndAfterACutResumesFromTheLastOffsetReached() {
        String path = "/api/v1/jobs/" + id + "/attempts/1/logs";
        byte[] first = {'1', '0', '%', '\r'};
        byte[] second = {(byte) 0xFF, '\n'};
        byte[] third = {'d', 'o', 'n', 'e', '\n'};
        api.on("GET", path,
                new Answer(200, "text/event-stream", logEvent(first, 104) + ": keep-alive\n\n" + logEvent(second, 106)),
                Answer.problem(503, "an instance going away"),
                new Answer(200, "text/event-stream", logEvent(third, 111) + "event: end\ndata: \n\n"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        client().followLogs(id, 1, "stdout", 100L, out::writeBytes);

        assertThat(out.toByteArray()).as("every byte once, in order, CR and a byte that is not UTF-8 included")
                .isEqualTo(new byte[] {'1', '0', '%', '\r', (byte) 0xFF, '\n', 'd', 'o', 'n', 'e', '\n'});
        var calls = api.calls("GET", path);
        assertThat(calls).hasSize(3);
        assertThat(calls.getFirst().query()).isEqualTo("follow=true&encoding=base64&stream=stdout&offset=100");
        assertThat(calls.getFirst().header("Accept")).isEqualTo("text/event-stream");
        assertThat(calls.getFirst().header("Last-Event-ID")).isNull();
        assertThat(calls.get(1).header("Last-Event-ID")).as("the stream was cut after offset 106").isEqualTo("106");
        assertThat(calls.get(2).header("Last-Event-ID")).as("a 503 read nothing").isEqualTo("106");
    }

    @Test
    void followLogsGivesUpAfterSoManyCutsInARowWithNothingReadAndAtOnceWhenRefused() {
        String path = "/api/v1/jobs/" + id + "/attempts/1/logs";
        api.on("GET", path, new Answer(200, "text/event-stream", ": keep-alive\n\n"));
        assertThatThrownBy(() -> client().followLogs(id, 1, "stdout", null, bytes -> { }))
                .isInstanceOf(UncheckedIOException.class).hasMessageContaining("ended before its end");
        assertThat(api.calls("GET", path)).hasSize(LogFollow.RETRIES + 1);

        StubApi other = new StubApi();
        try {
            other.on("GET", path, Answer.problem(404, "no attempt 1"));
            assertThatThrownBy(() -> FleetJobsClient.connect(other.url(), "fj_token")
                    .followLogs(id, 1, "stdout", null, bytes -> { }))
                    .isInstanceOfSatisfying(RestClientResponseException.class,
                            e -> assertThat(e.getStatusCode().value()).isEqualTo(404));
            assertThat(other.calls()).hasSize(1);
        } finally {
            other.close();
        }
    }
}
