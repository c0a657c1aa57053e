package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.agent.process.Attempt;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.AttemptRunner;
import io.fleetjobs.agent.process.Outcome;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AttemptReport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a job prints cannot make its machine's heartbeats too large for the agent API: four attempts that each end with
 * 64 KiB of control characters on stdout and on stderr (each written as a six-byte escape in JSON: 768 KiB a report)
 * once made every heartbeat of their machine 3 MiB; the scheduler refused each (413, its 1 MiB limit), the machine was
 * declared lost with every attempt on it, and its agent went on sending the same heartbeat. Here the scheduler refuses
 * bodies over 1 MiB as the real one does, and acknowledges the final reports it reads.
 */
class HeartbeatBodyTest {
    private static final int LIMIT = 1 << 20;
    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private static final List<UUID> JOBS = IntStream.rangeClosed(1, 4).mapToObj(i -> new UUID(9, i)).toList();
    private static final String PRINTED = "\u0001".repeat(64 * 1024 - 4) + "end\n";

    @TempDir
    Path workDir;
    private HttpServer scheduler;
    private Agent agent;
    private final AtomicInteger heartbeats = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final Map<UUID, AttemptReport> acknowledged = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.stop();
        }
        if (scheduler != null) {
            scheduler.stop(0);
        }
    }

    @Test
    void finalReportsWhoseTailsEscapeLargeGoInHeartbeatsTheAgentApiTakes() throws IOException {
        scheduler = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        scheduler.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        scheduler.createContext(AgentProtocol.JOIN_PATH, exchange -> {
            exchange.getRequestBody().readAllBytes();
            KeptCredentialTest.answer(exchange, "{\"machineId\":\"m-1\",\"credential\":\"c-1\",\"incarnation\":1,"
                    + "\"leaseTtlMs\":60000,\"heartbeatIntervalMs\":200,\"killGraceMs\":1000}");
        });
        scheduler.createContext(AgentProtocol.HEARTBEAT_PATH, exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            int n = heartbeats.incrementAndGet();
            if (body.length > LIMIT) {
                refused.incrementAndGet();
                exchange.sendResponseHeaders(413, -1);
                exchange.close();
                return;
            }
            var heartbeat = JSON.readValue(body, AgentProtocol.Heartbeat.class);
            List<AttemptReport> ended = heartbeat.attempts().stream().filter(r -> r.state() != AttemptState.RUNNING)
                    .toList();
            ended.forEach(r -> acknowledged.put(r.jobId(), r));
            String start = n > 1 ? "" : JOBS.stream().map(job -> "{\"jobId\":\"" + job + "\",\"attempt\":1,\"epoch\":1,"
                    + "\"command\":[\"print\"],\"env\":{},\"startWithinMs\":60000}").collect(Collectors.joining(","));
            String ack = ended.stream().map(r -> "{\"jobId\":\"" + r.jobId() + "\",\"attempt\":" + r.attempt() + "}")
                    .collect(Collectors.joining(","));
            KeptCredentialTest.answer(exchange, "{\"leaseTtlMs\":60000,\"start\":[" + start + "],\"kill\":[],\"ack\":["
                    + ack + "]}");
        });
        scheduler.start();

        WorkerProperties properties = new WorkerProperties("http://127.0.0.1:" + scheduler.getAddress().getPort(), "m-1",
                null, null, null, null, null, null, "join-token", Duration.ofMillis(200), workDir, Duration.ofSeconds(5),
                null, null, null, null, null, null);
        agent = new Agent(properties, new MachineResources("m-1", 4000, 4096, 0, null),
                new SchedulerClient(RestClient.builder(), properties.schedulerUrl(), Duration.ofSeconds(5)),
                printingControlCharacters(), InstantSource.system(), null);
        agent.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() == JOBS.size() || refused.get() > 3);
        assertThat(refused.get()).as("heartbeats refused as too large").isZero();
        assertThat(acknowledged.keySet()).containsExactlyInAnyOrderElementsOf(JOBS);
        assertThat(acknowledged.values()).allSatisfy(r -> {
            assertThat(r.state()).isEqualTo(AttemptState.SUCCEEDED);
            assertThat(r.stdoutTail()).as("the tail's end is kept").endsWith("end\n").startsWith("\u0001");
            assertThat(r.stderrTail()).endsWith("end\n");
        });
    }

    @Test
    void whatJsonWritesOfATailIsNeverMoreThanCountedAndTheCutKeepsItsEnd() {
        for (String text : List.of("plain line\n", "\u0001\u0002\t\"\\/\u007f", "é漢😀", PRINTED)) {
            int written = JSON.writeValueAsString(text).getBytes(java.nio.charset.StandardCharsets.UTF_8).length - 2;
            assertThat(HeartbeatBody.jsonBytes(text)).as(text.substring(0, Math.min(20, text.length())))
                    .isGreaterThanOrEqualTo(written);
        }
        String cut = HeartbeatBody.lastJsonBytes("a😀".repeat(50_000) + "end", 1000);
        assertThat(HeartbeatBody.jsonBytes(cut)).isLessThanOrEqualTo(1000);
        assertThat(cut).endsWith("end").doesNotStartWith("\uDE00");
        assertThat(Character.isLowSurrogate(cut.charAt(0))).as("never half a pair").isFalse();
    }

    /** A runner whose attempts end with exit code 0 soon after they start, having printed {@link #PRINTED} twice. */
    private static AttemptRunner printingControlCharacters() {
        return new AttemptRunner() {
            @Override
            public List<AttemptKey> killLeftovers() {
                return List.of();
            }

            @Override
            public Attempt start(AttemptKey key, List<String> command, Map<String, String> env) {
                Instant startedAt = Instant.now();
                CompletableFuture<Outcome> exit = CompletableFuture.supplyAsync(
                        () -> new Outcome(0, null, Instant.now(), PRINTED, PRINTED, null),
                        CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS));
                return new Attempt() {
                    public Instant startedAt() {
                        return startedAt;
                    }

                    public CompletableFuture<Outcome> exit() {
                        return exit.thenApply(o -> o);
                    }

                    public void terminate() {
                    }

                    public String stdoutTail() {
                        return PRINTED;
                    }

                    public String stderrTail() {
                        return PRINTED;
                    }
                };
            }
        };
    }
}
