package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.store.Principal;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.SseReader;
import io.fleetjobs.testsupport.TestDatabases;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Live events through the gateway: each event reaches the client while the service still holds the stream open
 * (nothing is buffered), for both event paths, and a stream outlives the client read timeout while heartbeats flow.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class StreamingThroughTheGatewayTest {
    private static final TestDatabases.Database DB = TestDatabases.create();
    private static final StreamingUpstream JOB_SERVICE = new StreamingUpstream();
    private static final Duration WAIT = Duration.ofSeconds(10);

    @LocalServerPort
    int port;
    @Autowired
    TenantStore tenants;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("jobs.internal-secret", () -> "gateway-streaming-test-internal-secret");
        registry.add("jobs.gateway.job-service-url", () -> "http://127.0.0.1:" + JOB_SERVICE.port());
        registry.add("jobs.gateway.scheduler-url", () -> "http://127.0.0.1:1");
        registry.add("spring.http.clients.read-timeout", () -> "1s");
        registry.add("jobs.gateway.max-streams-per-tenant", () -> "12");
    }

    @AfterAll
    static void stop() {
        JOB_SERVICE.server.stop(0);
    }

    @Test
    void eachEventArrivesWhileTheStreamIsStillOpen() {
        var t = tenants.create("streamer", 1, null, null, null).orElseThrow();
        Api client = new Api(port, tenants.issueKey(t.id(), Principal.Role.USER).key());
        for (String path : List.of("/api/v1/events?follow=true", "/api/v1/jobs/0190c0de-0000-7000-8000-000000000001/events?follow=true")) {
            JOB_SERVICE.reset();
            try (SseReader events = SseReader.open(client, path, Map.of("Last-Event-ID", "41"))) {
                assertThat(events.status()).as(path).isEqualTo(200);
                assertThat(events.contentType()).startsWith("text/event-stream");
                SseReader.Event first = events.next(WAIT);
                assertThat(first).as("the first event before the service sends the second").isNotNull();
                assertThat(first.id()).isEqualTo("42");
                JOB_SERVICE.firstSeen.countDown();
                SseReader.Event second = events.next(WAIT);
                assertThat(second).as("after heartbeats longer than the read timeout").isNotNull();
                assertThat(second.id()).isEqualTo("43");
                assertThat(events.comments()).isPositive();
            } finally {
                JOB_SERVICE.clientDone.countDown();
            }
            assertThat(JOB_SERVICE.lastEventId).isEqualTo("41");
            assertThat(JOB_SERVICE.path).isEqualTo(path);
        }
    }

    /**
     * A live stream holds a connection to the service for as long as it lasts: open streams, however many, must not
     * hold up the calls and streams that come after them (the gateway's client kept five connections to a service,
     * so five open streams of any tenant stopped every call to it). One tenant may have twelve open here
     * ({@code jobs.gateway.max-streams-per-tenant}): its thirteenth is 429, another tenant's is not, and once one
     * of the twelve ends the tenant may open another.
     */
    @Test
    void manyOpenStreamsHoldUpNothingAndATenantHasItsShareOfThem() throws Exception {
        var t = tenants.create("many-streams", 1, null, null, null).orElseThrow();
        Api client = new Api(port, tenants.issueKey(t.id(), Principal.Role.USER).key());
        var other = tenants.create("other-streams", 1, null, null, null).orElseThrow();
        Api otherClient = new Api(port, tenants.issueKey(other.id(), Principal.Role.USER).key());
        JOB_SERVICE.reset();
        List<CompletableFuture<SseReader>> opening = new ArrayList<>();
        try {
            for (int i = 0; i < 12; i++) {
                opening.add(CompletableFuture.supplyAsync(() -> SseReader.open(client, "/api/v1/events?follow=true"),
                        runnable -> Thread.ofVirtual().start(runnable)));
            }
            List<SseReader> open = new ArrayList<>();
            for (CompletableFuture<SseReader> each : opening) {
                SseReader events = each.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                open.add(events);
                assertThat(events.status()).isEqualTo(200);
                assertThat(events.next(WAIT)).as("each stream's first event while all are open").isNotNull();
            }
            try (SseReader thirteenth = SseReader.open(client, "/api/v1/events?follow=true");
                    SseReader othersFirst = SseReader.open(otherClient, "/api/v1/events?follow=true")) {
                assertThat(thirteenth.status()).isEqualTo(429);
                assertThat(thirteenth.body()).contains("many-streams").contains("12 live streams");
                assertThat(othersFirst.status()).as("another tenant's stream").isEqualTo(200);
            }

            open.getFirst().close();
            await().atMost(WAIT).until(() -> {
                SseReader again = SseReader.open(client, "/api/v1/events?follow=true");
                opening.add(CompletableFuture.completedFuture(again));
                return again.status() == 200;
            });
        } finally {
            JOB_SERVICE.clientDone.countDown();
            for (CompletableFuture<SseReader> open : opening) {
                open.thenAccept(SseReader::close);
            }
        }
    }

    /**
     * A client that leaves a live stream ends it at the service too: the gateway stops reading the service's stream
     * (closing an endless chunked body read it to its end, so the gateway held the service's stream, a connection
     * and a thread for as long as the service kept it open, which for live events is forever).
     */
    @Test
    void aStreamWhoseClientLeftEndsAtTheService() throws Exception {
        var t = tenants.create("leaver", 1, null, null, null).orElseThrow();
        String key = tenants.issueKey(t.id(), Principal.Role.USER).key();
        await().atMost(WAIT).until(() -> JOB_SERVICE.streaming.get() == 0); // other tests' streams, told to end
        JOB_SERVICE.reset();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream().write(("GET /api/v1/events?follow=true HTTP/1.1\r\nHost: gateway\r\n"
                    + "Authorization: Bearer " + key + "\r\nAccept: text/event-stream\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            var in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            assertThat(in.readLine()).startsWith("HTTP/1.1 200");
            String line;
            while ((line = in.readLine()) != null && !line.startsWith("id: 42")) {
                // headers, then the first event
            }
            assertThat(line).as("the first event").isEqualTo("id: 42");
            assertThat(JOB_SERVICE.streaming.get()).isEqualTo(1);
        } // the client leaves; the service goes on sending heartbeats
        try {
            await().atMost(WAIT).untilAsserted(() -> assertThat(JOB_SERVICE.streaming.get())
                    .as("streams the service still sends").isZero());
        } finally {
            JOB_SERVICE.clientDone.countDown();
        }
    }

    /**
     * A followed log read as {@code text/plain} has no heartbeat to send: a job that prints nothing for longer than the
     * gateway's read timeout (60 s by default) had its follow cut there, and the client saw the stream end while the
     * job ran on. Followed logs are read with {@code jobs.gateway.follow-read-timeout} instead; every other call keeps
     * the read timeout (below, the stand-in is silent for 1.5 s against 1 s).
     */
    @Test
    void aFollowedLogOutlivesTheReadTimeoutWhileItsJobIsSilent() throws Exception {
        var t = tenants.create("silent-follower", 1, null, null, null).orElseThrow();
        Api client = new Api(port, tenants.issueKey(t.id(), Principal.Role.USER).key());
        var followed = HttpClient.newHttpClient().send(client.request("GET", SILENT_LOGS + "?follow=true")
                .header("Accept", "text/plain").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(followed.statusCode()).isEqualTo(200);
        assertThat(followed.body()).isEqualTo("before the silence\nafter it\n");

        String notFollowed;
        try {
            notFollowed = client.get(SILENT_LOGS).body();
        } catch (UncheckedIOException cut) {
            notFollowed = cut.toString();
        }
        assertThat(notFollowed).as("a call that is not a follow still times out").isNotEqualTo(followed.body());
    }

    /** A followed log whose stand-in prints, is silent for longer than the read timeout, prints again and ends. */
    static final String SILENT_LOGS = "/api/v1/jobs/0190c0de-0000-7000-8000-000000000002/attempts/1/logs";

    /**
     * A stand-in job-service: one event, then heartbeats until the client has the first (for longer than the
     * gateway's read timeout), then another, and holds the stream open with heartbeats until the client is done.
     */
    static final class StreamingUpstream {
        final HttpServer server;
        volatile CountDownLatch firstSeen = new CountDownLatch(1);
        volatile CountDownLatch clientDone = new CountDownLatch(1);
        volatile String lastEventId;
        volatile String path;
        /** The streams the stand-in is sending now. */
        final AtomicInteger streaming = new AtomicInteger();

        StreamingUpstream() {
            try {
                server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext(SILENT_LOGS, exchange -> {
                exchange.getResponseHeaders().add("Content-Type", "text/plain;charset=UTF-8");
                exchange.sendResponseHeaders(200, 0);
                try (OutputStream out = exchange.getResponseBody()) {
                    send(out, "before the silence\n");
                    new CountDownLatch(1).await(1_500, TimeUnit.MILLISECONDS); // the job prints nothing for a while
                    send(out, "after it\n");
                } catch (IOException | InterruptedException gone) {
                    // the gateway gave up on it
                }
            });
            server.createContext("/", exchange -> {
                CountDownLatch seen = firstSeen; // this stream's, whatever a later reset() sets
                CountDownLatch done = clientDone;
                lastEventId = exchange.getRequestHeaders().getFirst("Last-Event-ID");
                path = exchange.getRequestURI().toString();
                exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
                exchange.sendResponseHeaders(200, 0);
                streaming.incrementAndGet();
                try (OutputStream out = exchange.getResponseBody()) {
                    send(out, "id: 42\ndata: {\"to\":\"QUEUED\"}\n\n");
                    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500);
                    while ((seen.getCount() > 0 || System.nanoTime() < until) && beat(out, done)) {
                        // only heartbeats, for longer than the gateway's read timeout
                    }
                    send(out, "id: 43\ndata: {\"to\":\"RUNNING\"}\n\n");
                    while (beat(out, done)) {
                        // held open
                    }
                } catch (IOException | InterruptedException gone) {
                    // the client left
                } finally {
                    streaming.decrementAndGet();
                }
            });
            server.start();
        }

        void reset() {
            firstSeen = new CountDownLatch(1);
            clientDone = new CountDownLatch(1);
        }

        /** A heartbeat, then the stand-in's pace (300 ms) unless the client is done first; false once it is. */
        private static boolean beat(OutputStream out, CountDownLatch done) throws IOException, InterruptedException {
            send(out, ": keep-alive\n\n");
            return !done.await(300, TimeUnit.MILLISECONDS);
        }

        private static void send(OutputStream out, String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        int port() {
            return server.getAddress().getPort();
        }
    }
}
