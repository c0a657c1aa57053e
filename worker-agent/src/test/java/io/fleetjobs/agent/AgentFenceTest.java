package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.process.RunningAttempt;
import io.fleetjobs.model.agent.AgentProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.web.client.RestClient;

/**
 * A real agent, real processes, a stand-in scheduler that answers the join and one heartbeat, then goes silent (it
 * takes every later heartbeat and never answers). The lease's timer fences on its own, with the TTL and the kill
 * grace the scheduler said: SIGKILL by the lease's end plus that grace, though the runner's own grace is a minute and
 * the job ignores SIGTERM. A lease whose deadline to start had passed when the scheduler answered is never started.
 */
class AgentFenceTest {
    static final long LEASE_TTL_MS = 2500;
    static final long KILL_GRACE_MS = 700;
    final UUID job = UUID.randomUUID();
    final UUID late = UUID.randomUUID();

    @TempDir
    Path workDir;
    HttpServer scheduler;
    final CountDownLatch silent = new CountDownLatch(1);
    final AtomicInteger heartbeats = new AtomicInteger();
    final AtomicLong answeredAt = new AtomicLong();
    ProcessRunner runner;
    Agent agent;

    @BeforeEach
    void aSchedulerThatGoesSilent() throws IOException {
        scheduler = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        scheduler.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        scheduler.createContext(AgentProtocol.JOIN_PATH, exchange -> {
            exchange.getRequestBody().readAllBytes();
            KeptCredentialTest.answer(exchange, "{\"machineId\":\"m-1\",\"credential\":\"c-1\",\"incarnation\":1,"
                    + "\"leaseTtlMs\":" + LEASE_TTL_MS + ",\"heartbeatIntervalMs\":200,\"killGraceMs\":" + KILL_GRACE_MS + "}");
        });
        scheduler.createContext(AgentProtocol.HEARTBEAT_PATH, exchange -> {
            exchange.getRequestBody().readAllBytes();
            if (heartbeats.incrementAndGet() > 1) {
                try {
                    silent.await(); // taken, never answered: a silent partition
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                exchange.close();
                return;
            }
            answeredAt.set(System.nanoTime());
            KeptCredentialTest.answer(exchange, "{\"leaseTtlMs\":" + LEASE_TTL_MS + ",\"kill\":[],\"ack\":[],\"start\":["
                    + lease(job, "trap '' TERM; while true; do sleep 0.1; done", null) + ","
                    + lease(late, "echo started too late", 0L) + "]}");
        });
        scheduler.start();
    }

    private static String lease(UUID id, String script, Long startWithinMs) {
        return "{\"jobId\":\"" + id + "\",\"attempt\":1,\"epoch\":1,\"command\":[\"sh\",\"-c\",\"" + script + "\"],"
                + "\"env\":{},\"gpus\":[],\"startWithinMs\":" + startWithinMs + "}";
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.stop();
        }
        silent.countDown();
        scheduler.stop(0);
        if (runner != null) {
            for (RunningAttempt attempt : runner.running()) {
                attempt.kill();
                attempt.exit().join();
            }
        }
    }

    @Test
    void cutOffItKillsItsAttemptsByTheLeasesEndPlusTheGraceTheSchedulerSaid() {
        WorkerProperties properties = new WorkerProperties("http://127.0.0.1:" + scheduler.getAddress().getPort(), "m-1",
                null, null, null, null, null, null, "join-token", Duration.ofMillis(200), workDir, Duration.ofMinutes(1),
                null, null, null, null, null, null);
        runner = new ProcessRunner(workDir.resolve("m-1"), 1 << 20, 4096, Duration.ofMinutes(1), InstantSource.system());
        agent = new Agent(properties, new MachineResources("m-1", 1000, 1024, 0, null),
                new SchedulerClient(RestClient.builder(), properties.schedulerUrl(), Duration.ofSeconds(5)), runner,
                InstantSource.system(), null);
        agent.start();

        AttemptKey key = new AttemptKey(job, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> agent.running().containsKey(key));
        RunningAttempt attempt = runner.running().getFirst();
        long started = System.nanoTime();
        // the lease ends at most LEASE_TTL after the answer (it counts from the send, before it), SIGKILL a grace later
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> !attempt.isAlive());
        long goneAfterAnswerMs = (System.nanoTime() - answeredAt.get()) / 1_000_000;

        assertThat(heartbeats.get()).as("heartbeats went on, unanswered").isGreaterThan(1);
        assertThat(goneAfterAnswerMs).as("gone by the lease's end + the grace (with the poll's slack)")
                .isLessThan(LEASE_TTL_MS + KILL_GRACE_MS + 1500);
        assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(Duration.ofMillis(LEASE_TTL_MS / 2).toNanos());
        assertThat(attempt.exit().join().signal()).as("it ignored SIGTERM: SIGKILL ended it").isEqualTo(9);
        assertThat(agent.running()).doesNotContainKey(new AttemptKey(late, 1));
        assertThat(runner.running()).isEmpty();
    }
}
