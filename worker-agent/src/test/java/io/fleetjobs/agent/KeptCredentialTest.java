package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.agent.process.Attempt;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.AttemptRunner;
import io.fleetjobs.agent.process.StartFailedException;
import io.fleetjobs.model.agent.AgentProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.client.RestClient;

/**
 * The machine's credential survives a restart of the agent: the first join presents none and keeps the one
 * it is given in {@code <work-dir>/credential}; the agent started again presents it, and keeps the next.
 */
class KeptCredentialTest {
    @TempDir
    Path workDir;
    HttpServer scheduler;
    final List<String> joins = new CopyOnWriteArrayList<>();
    final AtomicInteger incarnation = new AtomicInteger();
    final AtomicInteger refuseAsLive = new AtomicInteger();

    @BeforeEach
    void aScheduler() throws IOException {
        scheduler = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        scheduler.createContext(AgentProtocol.JOIN_PATH, exchange -> {
            joins.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            if (refuseAsLive.getAndDecrement() > 0) {
                byte[] body = "{\"detail\":\"machine m-1 is live (heard 1 s ago)\"}".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(409, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
                return;
            }
            int n = incarnation.incrementAndGet();
            answer(exchange, "{\"machineId\":\"m-1\",\"credential\":\"credential-" + n + "\",\"incarnation\":" + n
                    + ",\"leaseTtlMs\":30000,\"heartbeatIntervalMs\":200}");
        });
        scheduler.createContext(AgentProtocol.HEARTBEAT_PATH, exchange -> {
            exchange.getRequestBody().readAllBytes();
            answer(exchange, "{\"leaseTtlMs\":30000,\"start\":[],\"kill\":[],\"ack\":[]}");
        });
        scheduler.start();
    }

    @AfterEach
    void stop() {
        scheduler.stop(0);
    }

    static void answer(HttpExchange exchange, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    Agent anAgent() {
        WorkerProperties properties = new WorkerProperties("http://127.0.0.1:" + scheduler.getAddress().getPort(), "m-1",
                null, null, null, null, null, null, "join-token", Duration.ofMillis(200), workDir, null, null, null, null,
                null, null, null);
        SchedulerClient client = new SchedulerClient(RestClient.builder(), properties.schedulerUrl(), Duration.ofSeconds(5));
        AttemptRunner runner = new AttemptRunner() {
            @Override
            public List<AttemptKey> killLeftovers() {
                return List.of();
            }

            @Override
            public Attempt start(AttemptKey key, List<String> command, Map<String, String> env) throws StartFailedException {
                throw new StartFailedException("no attempts here");
            }
        };
        return new Agent(properties, new MachineResources("m-1", 1000, 1024, 0, null), client, runner,
                InstantSource.system(), CredentialFile.in(workDir));
    }

    @Test
    void aRestartedAgentPresentsTheCredentialItWasGivenBefore() throws Exception {
        Agent first = anAgent();
        first.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(workDir.resolve("credential")));
        } finally {
            first.stop();
        }
        assertThat(joins).hasSize(1);
        assertThat(joins.getFirst()).doesNotContain("credential-");
        Path file = workDir.resolve("credential");
        assertThat(Files.readString(file)).isEqualTo("credential-1");
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));

        Agent again = anAgent();
        again.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(file).equals("credential-2"));
        } finally {
            again.stop();
        }
        assertThat(joins).hasSize(2);
        assertThat(joins.get(1)).contains("\"credential\":\"credential-1\"");
    }

    /**
     * An agent killed before it kept its last credential finds its machine still live to the scheduler (409):
     * it keeps asking, and joins once the machine is lost and the join admitted, instead of exiting.
     */
    @Test
    void anAgentRefusedAsLiveAsksAgainUntilItIsAdmitted() {
        refuseAsLive.set(2);
        Agent agent = anAgent();
        agent.start();
        try {
            assertThat(joins).hasSize(3);
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(workDir.resolve("credential")));
        } finally {
            agent.stop();
        }
    }
}
