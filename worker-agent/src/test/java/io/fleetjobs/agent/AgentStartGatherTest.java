package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.agent.process.Attempt;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.AttemptRunner;
import io.fleetjobs.agent.process.Outcome;
import io.fleetjobs.model.agent.AgentProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.client.RestClient;

/**
 * An attempt that ends soon after it started is reported once, ended, not running and then ended (which writes its
 * job twice): after a reply that started attempts, the next heartbeat waits for them to end, up to a window, and goes
 * as soon as they all have. The window here is an hour, so the heartbeat that reports the end can only come because
 * the attempt ended.
 */
class AgentStartGatherTest {
    private static final UUID JOB = new UUID(7, 7);

    @TempDir
    Path workDir;
    private HttpServer scheduler;
    private Agent agent;
    /** Each heartbeat's body, in order. */
    private final List<String> heartbeats = new CopyOnWriteArrayList<>();

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
    void anAttemptThatEndsSoonAfterItStartedIsReportedOnceEnded() throws IOException {
        scheduler = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        scheduler.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        scheduler.createContext(AgentProtocol.JOIN_PATH, exchange -> {
            exchange.getRequestBody().readAllBytes();
            KeptCredentialTest.answer(exchange, "{\"machineId\":\"m-1\",\"credential\":\"c-1\",\"incarnation\":1,"
                    + "\"leaseTtlMs\":60000,\"heartbeatIntervalMs\":200,\"killGraceMs\":1000}");
        });
        scheduler.createContext(AgentProtocol.HEARTBEAT_PATH, exchange -> {
            heartbeats.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String start = heartbeats.size() == 1 ? "{\"jobId\":\"" + JOB + "\",\"attempt\":1,\"epoch\":1,"
                    + "\"command\":[\"work\"],\"env\":{},\"startWithinMs\":60000}" : "";
            KeptCredentialTest.answer(exchange, "{\"leaseTtlMs\":60000,\"start\":[" + start + "],\"kill\":[],\"ack\":[]}");
        });
        scheduler.start();

        WorkerProperties properties = new WorkerProperties("http://127.0.0.1:" + scheduler.getAddress().getPort(), "m-1",
                null, null, null, null, null, null, "join-token", Duration.ofMillis(200), workDir, Duration.ofSeconds(5),
                null, null, null, null, null, null);
        agent = new Agent(properties, new MachineResources("m-1", 1000, 1024, 0, null),
                new SchedulerClient(RestClient.builder(), properties.schedulerUrl(), Duration.ofSeconds(5)),
                endingSoon(), InstantSource.system(), null);
        agent.gatherAfterStart(Duration.ofHours(1));
        agent.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> heartbeats.stream().anyMatch(b -> b.contains("\"SUCCEEDED\"")));
        assertThat(heartbeats.get(1)).as("the heartbeat after the start reports the attempt ended")
                .contains(JOB.toString()).contains("\"SUCCEEDED\"");
        assertThat(heartbeats).noneMatch(b -> b.contains("\"RUNNING\""));
    }

    /** A runner whose attempts end with exit code 0 a tenth of a second after they start, on a thread of their own. */
    private static AttemptRunner endingSoon() {
        return new AttemptRunner() {
            @Override
            public List<AttemptKey> killLeftovers() {
                return List.of();
            }

            @Override
            public Attempt start(AttemptKey key, List<String> command, Map<String, String> env) {
                Instant startedAt = Instant.now();
                CompletableFuture<Outcome> exit = CompletableFuture.supplyAsync(
                        () -> new Outcome(0, null, Instant.now(), "", "", null),
                        CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
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
                        return "";
                    }

                    public String stderrTail() {
                        return "";
                    }
                };
            }
        };
    }
}
