package io.fleetjobs.agent;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.agent.process.Attempt;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.AttemptRunner;
import io.fleetjobs.agent.process.Outcome;
import io.fleetjobs.model.agent.AgentProtocol;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.springframework.web.client.RestClient;

/**
 * A scheduler's agent API played by the JDK's HTTP server for one agent, machine m-1: its join is answered with a
 * credential, a lease of 60 s and heartbeats every 200 ms, its heartbeats by the test's handler. Closing it stops the
 * agents it made, then itself.
 */
final class FakeScheduler implements AutoCloseable {
    private final HttpServer server;
    private final List<Agent> agents = new CopyOnWriteArrayList<>();

    private FakeScheduler(HttpServer server) {
        this.server = server;
    }

    static FakeScheduler start(HttpHandler heartbeats) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
            server.createContext(AgentProtocol.JOIN_PATH, exchange -> {
                exchange.getRequestBody().readAllBytes();
                KeptCredentialTest.answer(exchange, "{\"machineId\":\"m-1\",\"credential\":\"c-1\",\"incarnation\":1,"
                        + "\"leaseTtlMs\":60000,\"heartbeatIntervalMs\":200,\"killGraceMs\":1000}");
            });
            server.createContext(AgentProtocol.HEARTBEAT_PATH, heartbeats);
            server.start();
            return new FakeScheduler(server);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An agent of machine m-1 with these cores (in millicores) and memory, its attempts run by {@code runner}. */
    Agent agent(Path workDir, long cpuMillis, long memoryMb, AttemptRunner runner) {
        WorkerProperties properties = new WorkerProperties("http://127.0.0.1:" + server.getAddress().getPort(), "m-1",
                null, null, null, null, null, null, "join-token", Duration.ofMillis(200), workDir, Duration.ofSeconds(5),
                null, null, null, null, null, null);
        Agent agent = new Agent(properties, new MachineResources("m-1", cpuMillis, memoryMb, 0, null),
                new SchedulerClient(RestClient.builder(), properties.schedulerUrl(), Duration.ofSeconds(5)),
                runner, InstantSource.system(), null);
        agents.add(agent);
        return agent;
    }

    @Override
    public void close() {
        agents.forEach(Agent::stop);
        server.stop(0);
    }

    /**
     * A runner whose attempts end with exit code 0 {@code after} they start, on a thread of their own, having printed
     * {@code printed} on stdout and on stderr.
     */
    static AttemptRunner endingAfter(Duration after, String printed) {
        return new AttemptRunner() {
            @Override
            public List<AttemptKey> killLeftovers() {
                return List.of();
            }

            @Override
            public Attempt start(AttemptKey key, List<String> command, Map<String, String> env) {
                Instant startedAt = Instant.now();
                CompletableFuture<Outcome> exit = CompletableFuture.supplyAsync(
                        () -> new Outcome(0, null, Instant.now(), printed, printed, null),
                        CompletableFuture.delayedExecutor(after.toMillis(), TimeUnit.MILLISECONDS));
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
                        return printed;
                    }

                    public String stderrTail() {
                        return printed;
                    }
                };
            }
        };
    }
}
