package io.fleetjobs.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A real Kafka broker (KRaft, combined broker and controller) as a separate process on fixed ports
 * with its data in a directory of its own: it can be stopped, killed with SIGKILL, and started
 * again at the same address with the same data, as a broker restart looks to its clients.
 */
public final class KafkaProcess implements AutoCloseable {
    private final Path dir;
    private final int port = freePort();
    private final int controllerPort = freePort();
    private Process process;
    private boolean formatted;

    public KafkaProcess(Path dir) {
        this.dir = dir;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public synchronized KafkaProcess start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        try {
            if (!formatted) {
                deleteRecursively(dir); // left by an earlier run: other ports, another cluster id
            }
            Files.createDirectories(dir);
            Path config = dir.resolve("server.properties");
            Files.writeString(config, String.join("\n",
                    "process.roles=broker,controller",
                    "node.id=1",
                    "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                    "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                    "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                    "controller.listener.names=CONTROLLER",
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                    "inter.broker.listener.name=PLAINTEXT",
                    "log.dirs=" + dir.resolve("data").toAbsolutePath(),
                    "num.partitions=4",
                    "offsets.topic.replication.factor=1",
                    "offsets.topic.num.partitions=4",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                    "auto.create.topics.enable=true",
                    ""));
            if (!formatted) {
                int rc = java("kafka.tools.StorageTool", "format", "-t", org.apache.kafka.common.Uuid.randomUuid().toString(),
                        "-c", config.toString(), "--ignore-formatted").waitFor();
                if (rc != 0) {
                    throw new IllegalStateException("kafka storage format failed (" + rc + "); see " + dir.resolve("kafka.log"));
                }
                formatted = true;
            }
            process = java("kafka.Kafka", config.toString());
            awaitReady(Duration.ofSeconds(60));
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops the broker the way an operator does (SIGTERM) and waits for it to go. */
    public synchronized void stop() {
        end(false);
    }

    /** Kills the broker (SIGKILL). */
    public synchronized void kill() {
        end(true);
    }

    private void end(boolean force) {
        if (process == null) {
            return;
        }
        if (force) {
            process.destroyForcibly();
        } else {
            process.destroy();
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    private Process java(String main, String... args) throws IOException {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new java.util.ArrayList<>(List.of(javaBin, "-Xmx512m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), main));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("kafka.log").toFile()))
                .start();
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        try (AdminClient admin = AdminClient.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2_000))) {
            while (Instant.now().isBefore(deadline)) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("kafka exited with " + process.exitValue() + "; see " + dir.resolve("kafka.log"));
                }
                try {
                    if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (Exception notYet) {
                    // the broker is still starting: ask again until the deadline
                }
            }
        }
        throw new IllegalStateException("kafka did not answer within " + timeout + "; see " + dir.resolve("kafka.log"));
    }

    @Override
    public void close() {
        kill();
    }

    private static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (var walk = Files.walk(path)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
