package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TcpProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The fence under a silent partition, with the default settings (issue 19): a real agent reaches the scheduler
 * through a relay that, just after a reply, stops forwarding and closes nothing (packets dropped, no reset); its
 * job traps SIGTERM and takes 8 s to exit. A second machine of the region takes the retry once the first is lost.
 * The witness is the processes themselves: each holds a TCP connection to the test, which the kernel closes when
 * the last process holding it dies, so the test sees each attempt's life as its processes lived it, whatever
 * the agents or the database say. The two lives must not overlap.
 */
class SilentPartitionTest {
    private static Platform platform;
    private static Api user;

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of()); // the services' defaults: lease TTL, hold, lost TTL
        user = platform.tenant("silent");
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    /** One process's life as the witness saw it: connected, then closed by the kernel; nanoTime of this JVM. */
    record Life(String attempt, long connectedAt, long closedAt) {
        boolean ended() {
            return closedAt != 0;
        }
    }

    /** Accepts the jobs' connections; each says its attempt number, then holds the connection until it dies. */
    static final class Witness implements AutoCloseable {
        private final ServerSocket server;
        private final List<Life> lives = new CopyOnWriteArrayList<>();

        Witness() {
            try {
                server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Thread.ofVirtual().name("witness").start(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        long at = System.nanoTime();
                        Thread.ofVirtual().start(() -> watch(s, at));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        private void watch(Socket s, long connectedAt) {
            String attempt = "?";
            try (s; var in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
                String line = in.readLine();
                attempt = line == null ? "?" : line.trim();
                lives.add(new Life(attempt, connectedAt, 0));
                while (in.read() >= 0) {
                    // nothing more is sent: the read ends when the connection closes
                }
            } catch (IOException e) {
                // reset: as good as closed
            }
            long closedAt = System.nanoTime();
            String a = attempt;
            lives.removeIf(l -> l.attempt().equals(a) && !l.ended());
            lives.add(new Life(attempt, connectedAt, closedAt));
        }

        List<Life> of(String attempt) {
            return lives.stream().filter(l -> l.attempt().equals(attempt)).toList();
        }

        /** Every process heard from whose first line starts with {@code prefix}. */
        List<Life> startingWith(String prefix) {
            return lives.stream().filter(l -> l.attempt().startsWith(prefix)).toList();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @Test
    void aSilentlyPartitionedAgentsJobIsDeadBeforeItsRetryStarts() throws Exception {
        try (Witness witness = new Witness(); TcpProxy relay = new TcpProxy(platform.schedulerPort())) {
            // the agents' defaults too: Platform's shorter heartbeat and kill grace removed
            platform.agent("cut-off", relay.port(), "--jobs.worker.region=silent",
                    "--jobs.worker.heartbeat-interval=", "--jobs.worker.kill-grace=");
            // a job that checkpoints for 8 s when told to stop, and tells the witness which attempt it is
            String script = "exec 3<>/dev/tcp/127.0.0.1/" + witness.port() + "; echo $JOBS_ATTEMPT >&3; "
                    + "trap 'sleep 8; exit 143' TERM; while true; do sleep 0.1; done";
            var created = user.post("/api/v1/jobs", """
                    {"name": "checkpointing", "resources": {"cpu": 1, "memoryMb": 64}, "placement": {"region": "silent"},
                     "execution": {"command": ["bash", "-c", "%s"]}}""".formatted(script));
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            String id = created.field("id");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !witness.of("1").isEmpty());
            assertThat(job(id).get("machineId").asString()).isEqualTo("cut-off");

            platform.agent("takes-over", platform.schedulerPort(), "--jobs.worker.region=silent",
                    "--jobs.worker.heartbeat-interval=", "--jobs.worker.kill-grace=");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> ready("takes-over"));

            relay.silenceAfterNextReply();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(relay::isSilent);
            long silentAt = System.nanoTime();

            // the retry runs on the other machine, and the first attempt's processes are gone
            await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !witness.of("2").isEmpty() && witness.of("1").stream().allMatch(Life::ended));
            Life first = witness.of("1").getFirst();
            Life second = witness.of("2").getFirst();
            System.out.printf("silent partition at 0: attempt 1 dead at %d ms, attempt 2 alive at %d ms%n",
                    (first.closedAt() - silentAt) / 1_000_000, (second.connectedAt() - silentAt) / 1_000_000);
            assertThat(job(id).get("machineId").asString()).isEqualTo("takes-over");
            assertThat(witness.of("1")).as("one process of attempt 1").hasSize(1);
            assertThat(first.closedAt())
                    .as("attempt 1's processes died (%d ms after the partition) before attempt 2's started (%d ms)",
                            (first.closedAt() - silentAt) / 1_000_000, (second.connectedAt() - silentAt) / 1_000_000)
                    .isLessThan(second.connectedAt());

        }
    }

    private static JsonNode job(String id) {
        return user.get("/api/v1/jobs/" + id).json();
    }

    private static boolean ready(String machineId) {
        for (JsonNode m : platform.admin.get("/api/v1/machines").json().get("items")) {
            if (machineId.equals(m.get("id").asString()) && "READY".equals(m.get("status").asString())) {
                return true;
            }
        }
        return false;
    }
}
