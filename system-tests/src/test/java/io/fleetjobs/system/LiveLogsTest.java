package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.sdk.FleetJobsClient;
import io.fleetjobs.sdk.model.Execution;
import io.fleetjobs.sdk.model.Job;
import io.fleetjobs.sdk.model.JobSpec;
import io.fleetjobs.sdk.model.JobState;
import io.fleetjobs.sdk.model.NewTenant;
import io.fleetjobs.sdk.model.Resources;
import io.fleetjobs.sdk.model.RetryPolicy;
import io.fleetjobs.testsupport.TcpProxy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.web.client.RestClientResponseException;

/**
 * Live logs end to end: a reader follows a running job's output through the gateway while a real agent process ships
 * it; what the job prints after the follow began arrives while it runs, and the follow ends with the attempt.
 */
class LiveLogsTest {
    private static final Duration WITHIN = Duration.ofSeconds(60);
    private static Platform platform;
    private static FleetJobsClient fleet;
    private static String token;

    @BeforeAll
    static void start() {
        // two follows a tenant: this class's tests hold at most two open at once, and one test the third
        platform = new Platform(Map.of("jobs.logs.max-follows-per-tenant", "2"));
        var admin = FleetJobsClient.connect(platform.clientUrl(), Platform.ADMIN_TOKEN);
        admin.admin().createTenant(new NewTenant().name("live-logs"));
        token = admin.admin().issueApiKey("live-logs", Map.of()).getKey();
        fleet = FleetJobsClient.connect(platform.clientUrl(), token);
        platform.agent("logs-machine-1", platform.schedulerPort());
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    private static Job submit(String script) {
        return submit(script, "sh");
    }

    private static Job submit(String script, String shell) {
        return fleet.submit(new JobSpec().name("live-logs").resources(new Resources().cpu(new BigDecimal("0.5")).memoryMb(64L))
                .execution(new Execution().command(List.of(shell, "-c", script))).retry(new RetryPolicy().maxAttempts(1)));
    }

    /** Output as read so far, by a follow running on its own thread. */
    private static final class Followed {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CompletableFuture<Void> done;

        Followed(UUID job, String stream, Long offset) {
            this(fleet, job, stream, offset);
        }

        Followed(FleetJobsClient client, UUID job, String stream, Long offset) {
            // a thread of its own: the common pool has one thread on two cores, and a second follow waited there for
            // the first to end
            done = CompletableFuture.runAsync(() -> client.followLogs(job, 1, stream, offset, piece -> {
                synchronized (bytes) {
                    bytes.writeBytes(piece);
                }
            }), task -> Thread.ofVirtual().name("follow-" + stream).start(task));
        }

        String text() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }

        byte[] bytes() {
            synchronized (bytes) {
                return bytes.toByteArray();
            }
        }
    }

    @Test
    void aFollowerReceivesWhatTheJobPrintsAfterTheFollowBeganAndTheFollowEndsWithTheAttempt() throws IOException {
        // the job waits for the test's word over TCP: a sandboxed job has a /tmp (and a uid) of its own, so a file the
        // test makes need not be there for it
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout((int) WITHIN.toMillis());
            Job job = submit("echo before; exec 3<>/dev/tcp/127.0.0.1/" + gate.getLocalPort() + "; read -r word <&3;"
                    + " echo after the follow began; echo to stderr >&2", "bash");
            // followed once its agent has started it (a follow of an attempt not started yet is another case)
            await().atMost(WITHIN).until(() -> fleet.get(job.getId()).getState() == JobState.RUNNING);

            Followed stdout = new Followed(job.getId(), "stdout", null);
            await().atMost(WITHIN).until(() -> stdout.text().equals("before\n"));
            assertThat(stdout.done).as("the job still runs: so does the follow (%s)", stdout.done.isCompletedExceptionally()
                    ? stdout.done.exceptionNow() : "").isNotDone();

            long printedAt;
            try (Socket waiting = gate.accept()) {
                waiting.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
                waiting.getOutputStream().flush();
                printedAt = System.nanoTime();
                // a timeout, not a timing: how soon it came is printed (docs/benchmarks.md measures), never asserted
                await().atMost(WITHIN).until(() -> stdout.text().contains("after the follow began"));
            }
            System.out.printf("live logs: a line printed during the follow arrived %d ms after the job could print it%n",
                    (System.nanoTime() - printedAt) / 1_000_000);
            ended(job, stdout);
        }
    }

    private void ended(Job job, Followed stdout) {
        await().atMost(WITHIN).until(stdout.done::isDone);
        assertThat(stdout.done).as("%s", stdout.done.isCompletedExceptionally() ? stdout.done.exceptionNow() : "")
                .isCompleted();
        assertThat(stdout.text()).isEqualTo("before\nafter the follow began\n");
        // the agent marks the stream's end when the attempt's process is gone, maybe before its report is applied
        await().atMost(WITHIN).until(() -> fleet.get(job.getId()).getState() == JobState.SUCCEEDED);

        // the finished attempt's whole output, each stream, read back from the agent's files
        Followed again = new Followed(job.getId(), "stdout", 0L);
        Followed stderr = new Followed(job.getId(), "stderr", 0L);
        await().atMost(WITHIN).until(() -> again.done.isDone() && stderr.done.isDone());
        assertThat(again.text()).isEqualTo("before\nafter the follow began\n");
        assertThat(stderr.text()).isEqualTo("to stderr\n");
    }

    /**
     * The SDK (and so {@code jobctl logs -f}) through a connection that is cut while the job runs: it follows again from
     * the last offset it read, and the caller gets every byte once, as printed, CR and a byte that is not UTF-8
     * included. The SDK before read {@code text/plain}, which has no offsets, and ended with the cut.
     */
    @Test
    void aFollowCutWhileTheJobRunsGoesOnFromWhereItWasWithTheBytesAsPrinted() throws Exception {
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             TcpProxy proxy = new TcpProxy(
                     URI.create(platform.clientUrl()).getPort())) {
            gate.setSoTimeout((int) WITHIN.toMillis());
            Job job = submit("printf 'first 10%%\\r'; printf '\\377\\n'; exec 3<>/dev/tcp/127.0.0.1/" + gate.getLocalPort()
                    + "; read -r word <&3; printf 'then 100%%\\r\\n'", "bash");
            await().atMost(WITHIN).until(() -> fleet.get(job.getId()).getState() == JobState.RUNNING);
            byte[] before = {'f', 'i', 'r', 's', 't', ' ', '1', '0', '%', '\r', (byte) 0xFF, '\n'};

            Followed followed = new Followed(FleetJobsClient.connect("http://127.0.0.1:" + proxy.port(), token)
                    .withPollInterval(Duration.ofMillis(50)), job.getId(), "stdout", 0L);
            await().atMost(WITHIN).until(() -> Arrays.equals(followed.bytes(), before));
            proxy.cut(); // the follow's connection reset under it
            proxy.restore();
            try (Socket waiting = gate.accept()) {
                waiting.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
                waiting.getOutputStream().flush();
                await().atMost(WITHIN).until(followed.done::isDone);
            }
            assertThat(followed.done).as("%s", followed.done.isCompletedExceptionally() ? followed.done.exceptionNow() : "")
                    .isCompleted();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            all.writeBytes(before);
            all.writeBytes("then 100%\r\n".getBytes(StandardCharsets.UTF_8));
            assertThat(followed.bytes()).as("every byte once, in order").isEqualTo(all.toByteArray());
        }
    }

    /** A follow read as Server-Sent Events through the gateway: the output joined as SSE joins it, the last id, the end. */
    private record Events(String contentType, String text, long lastId, boolean ended) {
        static Events follow(UUID job, String query, String lastEventId) throws Exception {
            var request = HttpRequest.newBuilder(URI.create(platform.clientUrl() + "/api/v1/jobs/"
                            + job + "/attempts/1/logs?follow=true" + query))
                    .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream").timeout(WITHIN);
            if (lastEventId != null) {
                request.header("Last-Event-ID", lastEventId);
            }
            var response = HttpClient.newHttpClient().send(request.build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            StringBuilder text = new StringBuilder();
            long lastId = -1;
            boolean ended = false;
            for (String event : response.body().split("\n\n")) {
                List<String> data = new ArrayList<>();
                for (String line : event.split("\n")) {
                    if (line.equals("event: end")) {
                        ended = true;
                    } else if (line.startsWith("id: ")) {
                        lastId = Long.parseLong(line.substring(4));
                    } else if (line.startsWith("data: ")) {
                        data.add(line.substring(6));
                    }
                }
                if (!event.contains("event: end")) {
                    text.append(String.join("\n", data));
                }
            }
            return new Events(response.headers().firstValue("Content-Type").orElse(""), text.toString(), lastId, ended);
        }
    }

    /**
     * Each follow holds a thread of job-service and reads the database five times a second while open: with no bound, a
     * tenant opening them by the thousand (of its own job) made its load everyone's. One past the tenant's bound is 429
     * with Retry-After; a place given back is taken again.
     */
    @Test
    void aTenantFollowsAtMostSoManyStreamsAtOnce() throws Exception {
        try (ServerSocket gate = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            gate.setSoTimeout((int) WITHIN.toMillis());
            Job job = submit("echo waiting; echo also >&2; exec 3<>/dev/tcp/127.0.0.1/" + gate.getLocalPort()
                    + "; read -r word <&3", "bash");
            await().atMost(WITHIN).until(() -> fleet.get(job.getId()).getState() == JobState.RUNNING);
            Followed first = new Followed(job.getId(), "stdout", 0L);
            Followed second = new Followed(job.getId(), "stderr", 0L);
            // both open at the service: each has had the job's first line
            await().atMost(WITHIN).untilAsserted(() -> assertThat(List.of(first.text(), second.text()))
                    .as("%s %s", describe(first.done), describe(second.done)).containsExactly("waiting\n", "also\n"));

            var third = followOnce(job.getId());
            assertThat(third.statusCode()).as(third.body()).isEqualTo(429);
            assertThat(third.headers().firstValue("Retry-After")).isPresent();
            assertThat(third.body()).contains("follows 2 log streams");
            assertThat(second.done).isNotDone();

            try (Socket waiting = gate.accept()) {
                waiting.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            }
            await().atMost(WITHIN).until(() -> first.done.isDone() && second.done.isDone());
            // a place is given back when the answer has ended on the server's side, a moment after the reader's
            await().atMost(WITHIN).until(() -> followOnce(job.getId()).statusCode() == 200);
            assertThat(followOnce(job.getId()).body()).as("a place given back is taken again").contains("waiting");
        }
    }

    private static String describe(CompletableFuture<Void> done) {
        return !done.isDone() ? "open" : done.isCompletedExceptionally() ? "failed: " + done.exceptionNow() : "ended";
    }

    /**
     * A follow of the whole stdout, read to its end (the attempt's, or at once for a refusal); a follow that does not end
     * within {@code WITHIN} fails the test rather than holding it.
     */
    private static HttpResponse<String> followOnce(UUID job) throws Exception {
        return HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(
                        URI.create(platform.clientUrl() + "/api/v1/jobs/" + job + "/attempts/1/logs?follow=true&offset=0"))
                .header("Authorization", "Bearer " + token).timeout(WITHIN).build(),
                HttpResponse.BodyHandlers.ofString()).get(WITHIN.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aFollowReadAsServerSentEventsGivesTheOutputWithOffsetsForIdsAndResumesFromLastEventId() throws Exception {
        Job job = submit("printf 'one\\ntwo\\n'; printf three");
        await().atMost(WITHIN).until(() -> fleet.get(job.getId()).getState() == JobState.SUCCEEDED);

        Events whole = Events.follow(job.getId(), "&offset=0", null);
        assertThat(whole.contentType()).startsWith("text/event-stream");
        assertThat(whole.text()).isEqualTo("one\ntwo\nthree");
        assertThat(whole.lastId()).as("the byte offset the last event reached").isEqualTo(13);
        assertThat(whole.ended()).isTrue();
        // a client that reconnects after the event with id 4 ("one\n") gets the rest, not the whole again
        assertThat(Events.follow(job.getId(), "", "4").text()).isEqualTo("two\nthree");
    }

    @Test
    void anEncodingThatDoesNotExistIsRefusedNamingTheField() throws Exception {
        Job job = submit("true");
        await().atMost(WITHIN).until(() -> fleet.get(job.getId()).getAttempt() >= 1);
        var response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(platform.clientUrl() + "/api/v1/jobs/" + job.getId()
                                + "/attempts/1/logs?follow=true&encoding=utf16"))
                .header("Authorization", "Bearer " + token).timeout(WITHIN).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("encoding");
    }

    @Test
    void aFollowOfAStreamThatDoesNotExistIsRefusedNamingTheField() {
        Job job = submit("true");
        await().atMost(WITHIN).until(() -> fleet.get(job.getId()).getAttempt() >= 1);
        Followed wrong = new Followed(job.getId(), "stdin", null);
        await().atMost(WITHIN).until(wrong.done::isDone);
        assertThat(wrong.done).isCompletedExceptionally();
        assertThat(wrong.done.exceptionNow()).isInstanceOf(RestClientResponseException.class)
                .satisfies(e -> {
                    assertThat(((RestClientResponseException) e).getStatusCode().value()).isEqualTo(400);
                    assertThat(((RestClientResponseException) e).getResponseBodyAsString()).contains("stream");
                });
    }
}
