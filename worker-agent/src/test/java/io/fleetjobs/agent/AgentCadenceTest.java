package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.model.agent.AgentProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.client.RestClient;

/**
 * The agent heartbeats at the cadence its control plane says (HeartbeatCadence slows a large fleet): a stand-in
 * scheduler answers the join with one interval and lease, its first heartbeats the same, then a slower interval and
 * a longer lease. The agent's heartbeats ask to be held for what the interval it was told allows, and come no
 * faster than it; the agent never beats faster than its own setting either.
 */
class AgentCadenceTest {
    private static final Pattern WAIT = Pattern.compile("\"waitMs\":(\\d+)");

    @TempDir
    Path workDir;
    private HttpServer scheduler;
    private Agent agent;
    /** Each heartbeat as it came: when (nanoTime) and the hold it asked for. */
    private final List<long[]> heartbeats = new CopyOnWriteArrayList<>();

    private void scheduler(long joinIntervalMs, long laterIntervalMs, long laterLeaseMs) throws IOException {
        scheduler = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        scheduler.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        scheduler.createContext(AgentProtocol.JOIN_PATH, exchange -> {
            exchange.getRequestBody().readAllBytes();
            KeptCredentialTest.answer(exchange, "{\"machineId\":\"m-1\",\"credential\":\"c-1\",\"incarnation\":1,"
                    + "\"leaseTtlMs\":6000,\"heartbeatIntervalMs\":" + joinIntervalMs + ",\"killGraceMs\":1000}");
        });
        scheduler.createContext(AgentProtocol.HEARTBEAT_PATH, exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Matcher wait = WAIT.matcher(body);
            heartbeats.add(new long[] {System.nanoTime(), wait.find() ? Long.parseLong(wait.group(1)) : -1});
            boolean later = heartbeats.size() > 3;
            KeptCredentialTest.answer(exchange, "{\"leaseTtlMs\":" + (later ? laterLeaseMs : 6000) + ",\"heartbeatIntervalMs\":"
                    + (later ? laterIntervalMs : joinIntervalMs) + ",\"start\":[],\"kill\":[],\"ack\":[]}");
        });
        scheduler.start();
    }

    private void startAgent(Duration ownInterval) {
        WorkerProperties properties = new WorkerProperties("http://127.0.0.1:" + scheduler.getAddress().getPort(), "m-1",
                null, null, null, null, null, null, "join-token", ownInterval, workDir, Duration.ofSeconds(5),
                null, null, null, null, null, null);
        ProcessRunner runner = new ProcessRunner(workDir.resolve("m-1"), 1 << 20, 4096, Duration.ofSeconds(5),
                InstantSource.system());
        agent = new Agent(properties, new MachineResources("m-1", 1000, 1024, 0, null),
                new SchedulerClient(RestClient.builder(), properties.schedulerUrl(), Duration.ofSeconds(5)), runner,
                InstantSource.system(), null);
        agent.start();
    }

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
    void itHeartbeatsAtTheIntervalAndLeaseItIsTold() throws IOException {
        scheduler(200, 1500, 9000);
        startAgent(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(20)).until(() -> heartbeats.size() >= 7);

        assertThat(heartbeats.get(1)[1]).as("held for the interval told at join, not the agent's own 100 ms").isEqualTo(200);
        assertThat(heartbeats.get(5)[1]).as("held for the slower interval told since").isEqualTo(1500);
        long gapMs = (heartbeats.get(6)[0] - heartbeats.get(5)[0]) / 1_000_000;
        assertThat(gapMs).as("answered at once, the next heartbeat waits out the interval told").isGreaterThanOrEqualTo(1400);
    }

    @Test
    void itNeverBeatsFasterThanItsOwnSetting() throws IOException {
        scheduler(200, 50, 6000);
        startAgent(Duration.ofMillis(400));
        await().atMost(Duration.ofSeconds(20)).until(() -> heartbeats.size() >= 6);

        assertThat(heartbeats.get(1)[1]).isEqualTo(400);
        assertThat(heartbeats.get(5)[1]).as("told 50 ms, it keeps its own 400").isEqualTo(400);
    }
}
