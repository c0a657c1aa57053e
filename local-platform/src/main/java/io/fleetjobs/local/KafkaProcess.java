package io.fleetjobs.local;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real Kafka broker (KRaft, combined broker and controller) as a separate process on fixed ports
 * with its data in a directory of its own: it can be stopped, killed with SIGKILL, and started
 * again at the same address with the same data, as a broker restart looks to its clients.
 *
 * <p>The broker runs {@code kafka.Kafka} from a class path that holds the Kafka server jars
 * ({@code org.apache.kafka:kafka_2.13} and what it needs at run time); by default the current JVM's.
 * The first start of an instance formats the directory afresh (whatever an earlier instance left
 * there had other ports and another cluster id); later starts of the same instance keep the data.
 */
public final class KafkaProcess implements AutoCloseable {
    /** The broker's JVM options unless told otherwise. */
    static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseSerialGC");

    private final Path dir;
    private final String classPath;
    private final int port;
    private final int controllerPort;
    private final List<String> jvmOptions;
    private final Path logFile;
    private final List<String> launchPrefix;
    /** What clients must show ({@link #clientProperties}); null for a broker that asks nothing (tests of its own). */
    private final String password;
    private Process process;
    private boolean formatted;

    /** A broker on two free ports, run from the current JVM's class path, logging to {@code dir/kafka.log}. */
    public KafkaProcess(Path dir) {
        this(dir, System.getProperty("java.class.path"));
    }

    /**
     * A broker on two free ports, logging to {@code dir/kafka.log}.
     *
     * @param classPath a class path holding the Kafka server jars
     */
    public KafkaProcess(Path dir, String classPath) {
        this(dir, classPath, freePort(), freePort(), DEFAULT_JVM_OPTIONS, dir.resolve("kafka.log"), List.of());
    }

    /**
     * @param launchPrefix words put before the java command ({@code setsid}, so that a terminal's
     *                     Ctrl-C reaches only the launcher, which stops the broker in its turn)
     */
    KafkaProcess(Path dir, String classPath, int port, int controllerPort, List<String> jvmOptions, Path logFile,
            List<String> launchPrefix) {
        this(dir, classPath, port, controllerPort, jvmOptions, logFile, launchPrefix, null);
    }

    /**
     * @param password what every client, and the broker's own controller connection, must show (SASL PLAIN, user
     *                 {@link #USER}): any process of the machine reaches its ports, the agents' jobs among them, and
     *                 the topic carries every tenant's events; null for none
     */
    KafkaProcess(Path dir, String classPath, int port, int controllerPort, List<String> jvmOptions, Path logFile,
            List<String> launchPrefix, String password) {
        this.password = password;
        this.dir = dir.toAbsolutePath();
        this.classPath = absolute(classPath); // the broker runs in its own directory
        this.port = port;
        this.controllerPort = controllerPort;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.logFile = logFile.toAbsolutePath();
        this.launchPrefix = List.copyOf(launchPrefix);
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** The one user the broker knows when it asks for a password. */
    static final String USER = "fleetjobs";

    /** What a client sets besides the bootstrap servers to be let in: nothing, or SASL PLAIN with the password. */
    public Map<String, String> clientProperties() {
        return password == null ? Map.of() : Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", jaas(false));
    }

    /** The PLAIN login: the client's user and password, and for the broker also the users it lets in. */
    private String jaas(boolean server) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + USER + "\" password=\""
                + password + "\"" + (server ? " user_" + USER + "=\"" + password + "\"" : "") + ";";
    }

    /** The listeners' lines of server.properties: plain text, or SASL PLAIN on both, the controller's too. */
    private List<String> listeners() {
        if (password == null) {
            return List.of(
                    "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                    "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                    "controller.listener.names=CONTROLLER",
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                    "inter.broker.listener.name=PLAINTEXT");
        }
        return List.of(
                "listeners=SASL_PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=SASL_PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
                "inter.broker.listener.name=SASL_PLAINTEXT",
                "sasl.enabled.mechanisms=PLAIN",
                "sasl.mechanism.inter.broker.protocol=PLAIN",
                "sasl.mechanism.controller.protocol=PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config=" + jaas(true),
                "listener.name.controller.plain.sasl.jaas.config=" + jaas(true));
    }

    public int port() {
        return port;
    }

    public int controllerPort() {
        return controllerPort;
    }

    public Path logFile() {
        return logFile;
    }

    /** The broker's process while it runs. */
    public synchronized Optional<ProcessHandle> process() {
        return process != null && process.isAlive() ? Optional.of(process.toHandle()) : Optional.empty();
    }

    /** Starts the broker (a no-op while it runs) and waits until it answers, for up to a minute. */
    public KafkaProcess start() {
        return start(Duration.ofSeconds(60));
    }

    public synchronized KafkaProcess start(Duration timeout) {
        if (process != null && process.isAlive()) {
            return this;
        }
        try {
            if (!formatted) {
                deleteRecursively(dir); // left by an earlier run: other ports, another cluster id
            }
            Files.createDirectories(dir);
            try {
                // every tenant's events: not for the agents' jobs, other users of this machine
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system
            }
            Files.createDirectories(logFile.getParent());
            Path config = dir.resolve("server.properties");
            List<String> lines = new ArrayList<>(List.of(
                    "process.roles=broker,controller",
                    "node.id=1",
                    "controller.quorum.voters=1@127.0.0.1:" + controllerPort));
            lines.addAll(listeners());
            Files.writeString(config, String.join("\n", lines) + "\n" + String.join("\n",
                    "log.dirs=" + dir.resolve("data"),
                    "num.partitions=4",
                    "offsets.topic.replication.factor=1",
                    "offsets.topic.num.partitions=4",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                    "auto.create.topics.enable=true",
                    ""));
            Files.writeString(dir.resolve("logback.xml"), LOGBACK);
            if (!formatted) {
                Process format = java("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(),
                        "-c", config.toString(), "--ignore-formatted");
                int rc = format.waitFor();
                if (rc != 0) {
                    throw new IllegalStateException("kafka storage format failed (" + rc + "); see " + logFile);
                }
                formatted = true;
            }
            process = java("kafka.Kafka", config.toString());
            awaitReady(timeout);
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Stops the broker the way an operator does (SIGTERM) and waits for it to go, killing it after 30 s. */
    public synchronized void stop() {
        stop(Duration.ofSeconds(30));
    }

    /** Stops the broker (SIGTERM), waits for it to go for up to {@code grace}, then kills it. */
    public synchronized void stop(Duration grace) {
        end(false, grace);
    }

    /** Kills the broker (SIGKILL). */
    public synchronized void kill() {
        end(true, Duration.ofSeconds(30));
    }

    private void end(boolean force, Duration grace) {
        if (process == null) {
            return;
        }
        if (force) {
            process.destroyForcibly();
        } else {
            process.destroy();
        }
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    private Process java(String main, String... args) throws IOException {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(launchPrefix);
        command.add(javaBin);
        command.addAll(jvmOptions);
        // used where the class path has logback (the broker logs through SLF4J); without it the broker logs nothing
        command.add("-Dlogback.configurationFile=" + dir.resolve("logback.xml"));
        command.add("-Djava.io.tmpdir=" + dir);
        command.addAll(List.of("-cp", classPath, main));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
    }

    private void awaitReady(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        Map<String, Object> clientConfig = new HashMap<>(clientProperties());
        clientConfig.putAll(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2_000));
        try (AdminClient admin = AdminClient.create(clientConfig)) {
            while (Instant.now().isBefore(deadline)) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("kafka exited with " + process.exitValue() + "; see " + logFile);
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
        throw new IllegalStateException("kafka did not answer within " + timeout + "; see " + logFile);
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
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static String absolute(String classPath) {
        return Arrays.stream(classPath.split(File.pathSeparator)).filter(e -> !e.isEmpty())
                .map(e -> Path.of(e).toAbsolutePath().toString()).collect(Collectors.joining(File.pathSeparator));
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final String LOGBACK = """
            <configuration>
              <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
                <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
              </appender>
              <logger name="kafka.server.KafkaRaftServer" level="INFO"/>
              <logger name="kafka.server.BrokerServer" level="INFO"/>
              <logger name="kafka.server.ControllerServer" level="INFO"/>
              <root level="WARN"><appender-ref ref="out"/></root>
            </configuration>
            """;
}
