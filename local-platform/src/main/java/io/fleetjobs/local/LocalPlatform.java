package io.fleetjobs.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;

/**
 * The whole platform on this machine, each piece a process of its own that can be started, stopped
 * (SIGTERM, a grace, SIGKILL), killed (SIGKILL) and restarted by name: {@code postgres}, {@code kafka},
 * {@code job-service}, {@code scheduler-service}, {@code reconciler-service}, {@code api-gateway},
 * {@code agent-1}, {@code agent-2}, …
 *
 * <pre>
 *   start():  postgres, kafka            (together; each skipped when given from outside)
 *             the services whose jar is built   (together; all but the reconciler required)
 *             agent-1 … agent-n          (together, once the scheduler answers)
 *             "api"                      (an authenticated call through the gateway answers 200)
 *   stop():   the same, in reverse
 * </pre>
 *
 * <p>Each service is {@code java <options> -jar <module>/target/<jar> --server.port=<port>
 * --management.server.port=<port + 1000>} (the actuator's own port: prometheus, metrics, info) with the
 * database, Kafka and tokens in its environment ({@code JOBS_DB_URL}, …); it is up once
 * {@code GET /actuator/health} answers at all (and its readiness probe, when it has one, says ready).
 * Each agent is {@code worker-agent.jar} as machine {@code local-<n>} in region {@code local}, with its
 * work directory under {@code <home>/workers}; it is up once it has joined. Output goes to
 * {@code <home>/logs/<name>.log}. PostgreSQL, unless a URL is given, runs embedded (from this JVM)
 * with its data in {@code <home>/pg}, kept between runs; the Kafka broker, unless bootstrap servers are
 * given, is a process with its data in {@code <home>/kafka}, fresh on each {@link #start()}.
 *
 * <p>The home is locked while a platform runs on it; processes that a launcher which died hard left
 * running there are ended on the next start.
 */
public final class LocalPlatform implements AutoCloseable {
    public static final String POSTGRES = "postgres";
    public static final String KAFKA = "kafka";
    public static final String JOB_SERVICE = "job-service";
    public static final String SCHEDULER_SERVICE = "scheduler-service";
    public static final String RECONCILER_SERVICE = "reconciler-service";
    public static final String API_GATEWAY = "api-gateway";
    public static final String AGENT_PREFIX = "agent-";
    /** Agent {@code agent-N} plays machine {@code local-N}. */
    static final String MACHINE_PREFIX = "local-";

    /** A service: its name, default port and runnable jar (relative to the repository). */
    record Service(String name, int defaultPort, String jar, boolean required) {
    }

    /**
     * The services, one line each. A required one that is not built is an error (the services answer the API
     * only through the gateway); any other is skipped and reported by {@link #missing()}.
     */
    static final List<Service> SERVICES = List.of(
            new Service(JOB_SERVICE, 8081, "job-service/target/job-service-exec.jar", true),
            new Service(SCHEDULER_SERVICE, 8082, "scheduler-service/target/scheduler-service-exec.jar", true),
            new Service(RECONCILER_SERVICE, 8083, "reconciler-service/target/reconciler-service-exec.jar", false),
            new Service(API_GATEWAY, 8080, "api-gateway/target/api-gateway-exec.jar", true));
    static final String AGENT_JAR = "worker-agent/target/worker-agent.jar";

    /**
     * Small heaps, the serial collector and the C1 compiler only: a quick start and a small footprint
     * matter here, peak throughput does not.
     */
    public static final List<String> SERVICE_JVM_OPTIONS = List.of("-Xms32m", "-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xss512k");
    public static final List<String> AGENT_JVM_OPTIONS = List.of("-Xms16m", "-Xmx96m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-Xss512k");
    public static final List<String> KAFKA_JVM_OPTIONS = List.of("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1");

    /** A service's management port (the actuator: prometheus, metrics, info) is its port plus this: 9080–9083. */
    static final int MANAGEMENT_PORT_DISTANCE = 1000;

    /** Where the services listen unless {@link Builder#bindAddress} says otherwise. */
    static final String LOOPBACK = "127.0.0.1";
    /** A service's replica r listens on its port plus (r - 1) times this: scheduler-service-2 on 8182. */
    static final int REPLICA_PORT_DISTANCE = 100;
    static final int POSTGRES_PORT = 55432;
    static final int KAFKA_PORT = 59092;
    static final int KAFKA_CONTROLLER_PORT = 59093;

    /** What the platform says while it starts and stops. Called from the starting threads, so possibly concurrently. */
    public interface Listener {
        default void starting(List<String> components) {
        }

        default void ready(String component, String address, Duration took) {
        }

        default void skipped(String component, String why) {
        }

        default void stopping(String component) {
        }

        default void stopped(String component) {
        }

        /** A component ended on its own (not stopped or killed through this API); {@code exitCode} -1 when unknown. */
        default void exited(String component, int exitCode, Path log) {
        }

        default void note(String message) {
        }
    }

    private final Builder config;
    private final Path home;
    private final PidFiles pidFiles;
    private final BootJars bootJars;
    private final Map<String, Component> components = new LinkedHashMap<>();
    private final List<List<String>> tiers = new ArrayList<>();
    private final Map<String, Path> missing = new LinkedHashMap<>();
    private final Map<String, Integer> servicePorts = new HashMap<>();
    private final Map<String, Integer> managementPorts = new HashMap<>();
    /** Each service's replicas' ports, the first replica's first. */
    private final Map<String, List<Integer>> replicaPorts = new LinkedHashMap<>();
    private final String adminToken;
    private final String joinToken;
    private final String internalSecret;
    /** The embedded server's superuser password (kept in {@code db-password}); null with an external database. */
    private final String embeddedDatabasePassword;
    /** The local broker's password (kept in {@code kafka-password}); null with an external broker. */
    private final String kafkaPassword;
    private final Object startLock = new Object();
    private volatile boolean closed;
    private boolean prepared;
    private FileChannel lockChannel;
    private FileLock lock;

    private LocalPlatform(Builder config) {
        this.config = config;
        this.home = config.home.toAbsolutePath().normalize();
        this.pidFiles = new PidFiles(home.resolve("run"));
        this.bootJars = new BootJars(home.resolve("apps"), home.resolve("cds"));
        this.adminToken = config.adminToken != null ? config.adminToken : keptSecret("admin-token");
        this.joinToken = config.joinToken != null ? config.joinToken : keptSecret("join-token");
        this.internalSecret = config.internalSecret != null ? config.internalSecret : keptSecret("internal-secret");
        this.embeddedDatabasePassword = config.databaseUrl != null ? null : keptSecret("db-password");
        this.kafkaPassword = config.kafkaBootstrapServers != null ? null : keptSecret("kafka-password");
    }

    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------- the whole platform

    /** Starts everything, in order, waiting for each piece; on a failure stops what started and throws. */
    public LocalPlatform start() {
        synchronized (startLock) {
            closed = false;
            prepare();
            lock();
        }
        try {
            for (List<String> tier : tiers) {
                startTogether(tier);
            }
            awaitServing();
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
        return this;
    }

    /** Stops everything it started, in reverse order, agents (and their job processes) first, PostgreSQL last. */
    public void stop() {
        closed = true;
        List<List<String>> reversed = new ArrayList<>(tiers).reversed();
        for (List<String> tier : reversed) {
            stopTogether(tier);
        }
        unlock();
    }

    @Override
    public void close() {
        stop();
    }

    // ---------------------------------------------------------------- one component

    /** Starts one component (a no-op while it runs) and waits until it serves. */
    public void start(String name) {
        synchronized (startLock) {
            closed = false;
            prepare();
            lock();
        }
        startOne(component(name));
    }

    /**
     * Stops one component: SIGTERM (PostgreSQL: a fast shutdown), up to the stop timeout, then SIGKILL. For an
     * agent, then whatever job processes it leaves (see {@link AgentJobs}).
     */
    public void stop(String name) {
        Component c = component(name);
        config.listener.stopping(name);
        c.stop(config.stopTimeout);
        config.listener.stopped(name);
    }

    /**
     * Kills one component with SIGKILL, as a crash would (PostgreSQL: every process of the server). The launcher
     * ends nothing else: an agent's jobs end by the agent's own lifeline, and a restarted agent ends what is left.
     */
    public void kill(String name) {
        component(name).kill();
        if (name.startsWith(AGENT_PREFIX)) {
            // what the agent removes at its stop: its table refusing its attempts this platform's ports
            AgentJobs.unfence(agentsWorkDir().resolve(MACHINE_PREFIX + name.substring(AGENT_PREFIX.length())));
        }
    }

    /** Where the agents keep their machines' directories ({@code jobs.worker.work-dir}). */
    private Path agentsWorkDir() {
        return home.resolve("workers");
    }

    /** Stops, then starts one component, waiting until it serves again. */
    public void restart(String name) {
        stop(name);
        start(name);
    }

    public boolean isRunning(String name) {
        return component(name).isRunning();
    }

    /** The component's main process while it runs (for PostgreSQL, the postmaster). */
    public Optional<ProcessHandle> process(String name) {
        return component(name).process();
    }

    public Path log(String name) {
        return component(name).log();
    }

    /** The components this platform runs, in start order. */
    public List<String> components() {
        synchronized (startLock) {
            prepare();
            return List.copyOf(components.keySet());
        }
    }

    /** The services that are not built, with the jar that is missing. */
    public Map<String, Path> missing() {
        synchronized (startLock) {
            prepare();
            return Map.copyOf(missing);
        }
    }

    // ---------------------------------------------------------------- where things are

    public Path home() {
        return home;
    }

    /** Where clients go: the gateway (job-service when the gateway is left out). */
    public URI url() {
        synchronized (startLock) {
            prepare();
            return url(components.containsKey(API_GATEWAY) ? API_GATEWAY : JOB_SERVICE);
        }
    }

    /** A service's base URL. */
    public URI url(String service) {
        Integer port;
        synchronized (startLock) {
            prepare();
            port = servicePorts.get(service);
        }
        if (port == null) {
            throw new IllegalArgumentException("no service " + service + " here; there are " + servicePorts.keySet());
        }
        return URI.create("http://localhost:" + port);
    }

    /** A service's management base URL: {@code /actuator/prometheus}, {@code metrics}, {@code info} are there only. */
    public URI managementUrl(String service) {
        Integer port;
        synchronized (startLock) {
            prepare();
            port = managementPorts.get(service);
        }
        if (port == null) {
            throw new IllegalArgumentException("no service " + service + " here; there are " + managementPorts.keySet());
        }
        return URI.create("http://localhost:" + port);
    }

    public String databaseUrl() {
        if (config.databaseUrl != null) {
            return config.databaseUrl;
        }
        return ((EmbeddedPostgresServer) component(POSTGRES)).jdbcUrl();
    }

    public String databaseUser() {
        return config.databaseUrl != null ? config.databaseUser : EmbeddedPostgresServer.USER;
    }

    public String databasePassword() {
        return config.databaseUrl != null ? config.databasePassword : embeddedDatabasePassword;
    }

    /** Whether PostgreSQL runs embedded (no URL was given). */
    public boolean embeddedDatabase() {
        return config.databaseUrl == null;
    }

    public String kafkaBootstrapServers() {
        if (config.kafkaBootstrapServers != null) {
            return config.kafkaBootstrapServers;
        }
        return ((KafkaBroker) component(KAFKA)).bootstrapServers();
    }

    /** The local broker's process API (ports, log), when the broker is local. */
    public Optional<KafkaProcess> kafka() {
        synchronized (startLock) {
            prepare();
            return Optional.ofNullable((KafkaBroker) components.get(KAFKA)).map(KafkaBroker::kafka);
        }
    }

    /** The ports this platform listens on, by component (Kafka: broker and controller). */
    public Map<String, List<Integer>> ports() {
        synchronized (startLock) {
            prepare();
            Map<String, List<Integer>> ports = new LinkedHashMap<>();
            if (components.get(POSTGRES) instanceof EmbeddedPostgresServer pg) {
                ports.put(POSTGRES, List.of(pg.port()));
            }
            if (components.get(KAFKA) instanceof KafkaBroker k) {
                ports.put(KAFKA, List.of(k.kafka().port(), k.kafka().controllerPort()));
            }
            components.keySet().stream().filter(servicePorts::containsKey)
                    .forEach(s -> ports.put(s, List.of(servicePorts.get(s), managementPorts.get(s))));
            return ports;
        }
    }

    /**
     * What a sandboxed job of a local agent may not connect to: every port of the platform but the gateway's API
     * (PostgreSQL, Kafka, the services and every management port), beside the cloud's metadata endpoint (the agent adds
     * the scheduler's agent API it dials). On the address the services listen on, or on every address where that is a
     * wildcard.
     */
    private List<String> platformDestinations() {
        String address = config.bindAddress;
        boolean everywhere = "0.0.0.0".equals(address) || "::".equals(address) || "[::]".equals(address);
        String host = address.contains(":") && !address.startsWith("[") ? "[" + address + "]" : address;
        List<Integer> ports = new ArrayList<>();
        if (components.get(POSTGRES) instanceof EmbeddedPostgresServer pg) {
            ports.add(pg.port());
        }
        if (components.get(KAFKA) instanceof KafkaBroker k) {
            ports.add(k.kafka().port());
            ports.add(k.kafka().controllerPort());
        }
        servicePorts.forEach((name, port) -> {
            if (!name.equals(API_GATEWAY)) {
                ports.add(port);
            }
        });
        ports.addAll(managementPorts.values());
        List<String> destinations = new ArrayList<>(List.of("169.254.169.254"));
        ports.forEach(port -> destinations.add((everywhere ? "*" : host) + ":" + port));
        return destinations;
    }

    /**
     * Removes the nftables table in which an agent refused its attempts' connections, where the agent could not
     * (killed): for harnesses that start agents of their own, given the agent's machine directory
     * ({@code <jobs.worker.work-dir>/<machine-id>}).
     */
    public static void removeEgressRules(Path machineDir) {
        AgentJobs.unfence(machineDir);
    }

    public String adminToken() {
        return adminToken;
    }

    public String joinToken() {
        return joinToken;
    }

    /** Whether the admin token was generated here (and kept under the home), rather than given. */
    public boolean generatedAdminToken() {
        return config.adminToken == null;
    }

    public boolean generatedJoinToken() {
        return config.joinToken == null;
    }

    // ---------------------------------------------------------------- how

    private Component component(String name) {
        synchronized (startLock) {
            prepare();
            Component c = components.get(name);
            if (c == null) {
                String why = missing.containsKey(name) ? " (not built: " + missing.get(name) + " is missing)"
                        : name.equals(POSTGRES) || name.equals(KAFKA) ? " (given from outside: " + name + " is not run here)" : "";
                throw new IllegalArgumentException("no component " + name + why + "; there are " + components.keySet());
            }
            return c;
        }
    }

    private void startOne(Component c) {
        if (closed) {
            throw new IllegalStateException("the platform is stopping");
        }
        Instant began = Instant.now();
        c.start();
        config.listener.ready(c.name(), c.address(), Duration.between(began, Instant.now()));
    }

    private void startTogether(List<String> names) {
        List<String> present = names.stream().filter(components::containsKey).toList();
        if (present.isEmpty()) {
            return;
        }
        config.listener.starting(present);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> starts = new ArrayList<>();
            for (String n : present) {
                starts.add(threads.submit(() -> startOne(components.get(n))));
            }
            RuntimeException first = null;
            for (Future<?> f : starts) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                    if (first == null) {
                        first = cause;
                    } else {
                        first.addSuppressed(cause);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while starting", e);
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /**
     * Up means usable: a call with the admin token through the gateway answers 200 (health alone is not enough:
     * a gateway is healthy before it can check a key). 503 and no answer are waited out; a refused token is not,
     * as waiting would not change it. Without a gateway (left out) there is no front door to try.
     */
    private void awaitServing() {
        if (!components.containsKey(API_GATEWAY)) {
            return;
        }
        URI uri = url().resolve("/api/v1/jobs?limit=1");
        Instant began = Instant.now();
        Instant deadline = began.plus(config.startTimeout);
        String last = "nothing answered";
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build()) {
            while (true) {
                if (closed) {
                    throw new IllegalStateException("the platform is stopping");
                }
                try {
                    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                            .header("Authorization", "Bearer " + adminToken).GET().build(), HttpResponse.BodyHandlers.ofString());
                    if (answer.statusCode() == 200) {
                        config.listener.ready("api", "GET " + uri + " with the admin token: 200",
                                Duration.between(began, Instant.now()));
                        return;
                    }
                    last = answer.statusCode() + " " + answer.body();
                    if (answer.statusCode() == 401 || answer.statusCode() == 403) {
                        throw new IllegalStateException("GET " + uri + " refused the admin token: " + last);
                    }
                } catch (IOException e) {
                    last = e.toString();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the API", e);
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("GET " + uri + " with the admin token did not answer 200 within "
                            + config.startTimeout.toSeconds() + " s; its last answer: " + last);
                }
                Processes.pause(Duration.ofMillis(250));
            }
        }
    }

    private void stopTogether(List<String> names) {
        List<Component> running = names.stream().map(components::get).filter(Objects::nonNull).filter(Component::isRunning).toList();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Component c : names.stream().map(components::get).filter(Objects::nonNull).toList()) {
                boolean report = running.contains(c);
                threads.submit(() -> {
                    if (report) {
                        config.listener.stopping(c.name());
                    }
                    c.stop(config.stopTimeout);
                    if (report) {
                        config.listener.stopped(c.name());
                    }
                });
            }
        }
    }

    /** Once: locks the home, ends what an earlier launcher left running there, and lays out the components. */
    private void prepare() {
        if (prepared) {
            return;
        }
        lock();
        closeToOthers(home);
        List<ProcessHandle> leftovers = new ArrayList<>();
        for (PidFiles.Leftover left : pidFiles.takeLeftovers()) {
            config.listener.note("ending " + left.component() + " (pid " + left.process().pid()
                    + "), left running by an earlier launcher");
            leftovers.add(left.process());
            leftovers.addAll(left.process().descendants().toList());
        }
        Processes.terminate(leftovers, Duration.ofSeconds(10));
        if (config.databaseUrl == null) {
            EmbeddedPostgresServer.endLeftover(home.resolve("pg"));
        }
        if (config.classDataSharing) {
            List<Path> jars = new ArrayList<>();
            SERVICES.forEach(s -> jars.add(config.repository.resolve(s.jar()).toAbsolutePath().normalize()));
            jars.add(config.repository.resolve(AGENT_JAR).toAbsolutePath().normalize());
            bootJars.removeStale(jars); // nothing of this home runs now: copies of older builds can go
        }
        components.clear();
        tiers.clear();
        missing.clear();
        servicePorts.clear();
        managementPorts.clear();
        replicaPorts.clear();
        try {
            layOut();
        } catch (RuntimeException e) {
            unlock();
            throw e;
        }
        prepared = true;
    }

    private void layOut() {
        Path logs = home.resolve("logs");
        List<String> prefix = Processes.ownSessionPrefix();
        int offset = config.portOffset;

        List<String> infrastructure = new ArrayList<>();
        if (config.databaseUrl == null) {
            int port = config.postgresPort > 0 ? config.postgresPort : Processes.preferredOrFree(POSTGRES_PORT + offset);
            components.put(POSTGRES, new EmbeddedPostgresServer(home.resolve("pg"), postgresBinaries(home), port,
                    logs.resolve(POSTGRES + ".log"), config.startTimeout, embeddedDatabasePassword));
            infrastructure.add(POSTGRES);
        }
        if (config.kafkaBootstrapServers == null) {
            KafkaProcess kafka = new KafkaProcess(home.resolve("kafka"), config.classPath,
                    Processes.preferredOrFree(KAFKA_PORT + offset), Processes.preferredOrFree(KAFKA_CONTROLLER_PORT + offset),
                    withTmpDir(config.kafkaJvmOptions, KAFKA), logs.resolve(KAFKA + ".log"), prefix, kafkaPassword);
            components.put(KAFKA, new KafkaBroker(kafka, config.startTimeout, pidFiles, config.listener));
            infrastructure.add(KAFKA);
        }
        tiers.add(infrastructure);

        Map<String, Service> replicaOf = new LinkedHashMap<>(); // every replica's name, in start order, and its service
        for (Service s : SERVICES) {
            if (config.without.contains(s.name())) {
                continue;
            }
            Path jar = config.repository.resolve(s.jar()).toAbsolutePath().normalize();
            if (Files.isRegularFile(jar)) {
                for (int r = 1; r <= config.replicas.getOrDefault(s.name(), 1); r++) {
                    String name = replicaName(s.name(), r);
                    int port = config.portOffset + s.defaultPort() + (r - 1) * REPLICA_PORT_DISTANCE;
                    replicaOf.put(name, s);
                    replicaPorts.computeIfAbsent(s.name(), n -> new ArrayList<>()).add(port);
                    servicePorts.put(name, port);
                    managementPorts.put(name, port + MANAGEMENT_PORT_DISTANCE);
                }
            } else if (s.required()) {
                throw new IllegalStateException(s.name() + " is not built: " + jar + " is missing (./mvnw -DskipTests package)");
            } else {
                missing.put(s.name(), jar);
                config.listener.skipped(s.name(), "not built (" + s.jar() + " is missing)");
            }
        }
        List<String> services = new ArrayList<>();
        replicaOf.forEach((name, s) -> {
            int port = servicePorts.get(name);
            Path jar = config.repository.resolve(s.jar()).toAbsolutePath().normalize();
            List<String> args = new ArrayList<>(List.of("--server.port=" + port,
                    "--management.server.port=" + managementPorts.get(name), "--server.address=" + config.bindAddress,
                    "--management.server.address=" + config.bindAddress));
            args.addAll(config.serviceArgs.getOrDefault(s.name(), List.of()));
            List<String> options = withTmpDir(config.serviceJvmOptions, name);
            components.put(name, new JavaProcess(name, () -> JavaProcess.command(prefix, options, launch(name, jar), args),
                    serviceEnvironment(), home, logs.resolve(name + ".log"), ":" + port,
                    JavaProcess.http(port, Duration.ofSeconds(20)), (descendants, grace) -> Processes.terminate(descendants, grace),
                    config.startTimeout, pidFiles, config.listener));
            services.add(name);
        });
        tiers.add(services);

        List<String> agents = new ArrayList<>();
        if (config.workers > 0) {
            Path jar = config.repository.resolve(AGENT_JAR).toAbsolutePath().normalize();
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("worker-agent is not built: " + jar + " is missing (./mvnw -DskipTests package)");
            }
            for (int i = 1; i <= config.workers; i++) {
                String name = AGENT_PREFIX + i;
                String machine = MACHINE_PREFIX + i;
                Path workDir = agentsWorkDir();
                List<String> args = new ArrayList<>(List.of(
                        "--jobs.worker.scheduler-url=http://127.0.0.1:" + config.agentSchedulerPort.apply(i,
                                schedulerPorts(i)),
                        "--jobs.worker.machine-id=" + machine,
                        "--jobs.worker.region=local",
                        "--jobs.worker.cpu=" + config.agentCpu,
                        "--jobs.worker.memory-mb=" + config.agentMemoryMb,
                        "--jobs.worker.gpu-count=0",
                        "--jobs.worker.work-dir=" + workDir,
                        "--jobs.worker.isolation.deny-egress=" + String.join(",", platformDestinations())));
                Map<String, String> env = new HashMap<>();
                env.put("JOBS_WORKER_JOIN_TOKEN", joinToken); // not on the command line, where ps shows it
                args.addAll(config.agentArgs);
                Path running = workDir.resolve(machine).resolve("running");
                List<String> options = withTmpDir(config.agentJvmOptions, name);
                components.put(name, new JavaProcess(name, () -> JavaProcess.command(prefix, options, launch(name, jar), args), env, home,
                        logs.resolve(name + ".log"), "machine " + machine + ", " + config.agentCpu + " cpu, "
                                + config.agentMemoryMb + " MiB",
                        JavaProcess.logSays("joined as machine"),
                        (descendants, grace) -> {
                            int ended = AgentJobs.end(running, descendants, grace);
                            AgentJobs.unfence(workDir.resolve(machine)); // the agent removes them itself, unless it was killed
                            if (ended > 0) {
                                config.listener.note(name + ": ended " + ended + " job process(es) it left running");
                            }
                        },
                        config.startTimeout, pidFiles, config.listener));
                agents.add(name);
            }
        }
        tiers.add(agents);
    }

    /** A service's replica {@code r} (from 1): the first has the service's name, the others {@code name-r}. */
    public static String replicaName(String service, int r) {
        return r == 1 ? service : service + "-" + r;
    }

    /** How to run a jar: from an extracted copy with a class-data archive (see {@link BootJars}), or as it is. */
    private List<String> launch(String component, Path jar) {
        return config.classDataSharing ? bootJars.launch(component, jar) : List.of("-jar", jar.toString());
    }

    /** What a Kafka client sets to be let into the local broker (SASL PLAIN); nothing for an external one. */
    public Map<String, String> kafkaClientProperties() {
        return config.kafkaBootstrapServers != null ? Map.of()
                : ((KafkaBroker) components.get(KAFKA)).kafka().clientProperties();
    }

    private String kafkaBootstrapServersUnchecked() {
        return config.kafkaBootstrapServers != null ? config.kafkaBootstrapServers
                : ((KafkaBroker) components.get(KAFKA)).bootstrapServers();
    }

    /** The scheduler replicas' ports as agent {@code i} (from 1) sees them: its own replica's first, the agents spread over them. */
    private List<Integer> schedulerPorts(int agent) {
        List<Integer> ports = replicaPorts.getOrDefault(SCHEDULER_SERVICE, List.of(config.portOffset + 8082));
        List<Integer> mine = new ArrayList<>(ports);
        Collections.rotate(mine, -((agent - 1) % ports.size()));
        return List.copyOf(mine);
    }

    private Map<String, String> serviceEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put("JOBS_DB_URL", config.databaseUrl != null ? config.databaseUrl
                : ((EmbeddedPostgresServer) components.get(POSTGRES)).jdbcUrl(config.serviceDatabasePort));
        env.put("JOBS_DB_USER", databaseUser());
        env.put("JOBS_DB_PASSWORD", Objects.requireNonNullElse(databasePassword(), ""));
        env.put("JOBS_KAFKA_BOOTSTRAP_SERVERS", kafkaBootstrapServersUnchecked());
        kafkaClientProperties().forEach((key, value) -> env.put(
                key.equals("security.protocol") ? "SPRING_KAFKA_SECURITY_PROTOCOL"
                        : "SPRING_KAFKA_PROPERTIES_" + key.toUpperCase(Locale.ROOT).replace('.', '_'), value));
        env.put("JOBS_BOOTSTRAP_ADMIN_TOKEN", adminToken);
        env.put("JOBS_AGENT_JOIN_TOKEN", joinToken);
        env.put("JOBS_INTERNAL_SECRET", internalSecret); // the gateway signs callers' identities with it, services check them
        // where each service is, for the one that routes to the others: JOBS_JOB_SERVICE_URL, JOBS_SCHEDULER_SERVICE_URL, …
        replicaPorts.forEach((name, ports) -> env.put("JOBS_" + name.toUpperCase(Locale.ROOT).replace('-', '_') + "_URL",
                "http://127.0.0.1:" + config.serviceUpstream.apply(name, List.copyOf(ports))));
        if (System.getenv("JOBS_DB_POOL_SIZE") == null) {
            env.put("JOBS_DB_POOL_SIZE", "5");
        }
        return env;
    }

    /** The options, plus a temporary directory of the component's own under the home (Tomcat's, Kafka's scratch files). */
    private List<String> withTmpDir(List<String> options, String component) {
        Path tmp = home.resolve("tmp").resolve(component);
        try {
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make " + tmp, e);
        }
        List<String> all = new ArrayList<>(options);
        all.add("-Djava.io.tmpdir=" + tmp);
        return all;
    }

    private void lock() {
        if (lock != null) {
            return;
        }
        try {
            Files.createDirectories(home);
            lockChannel = FileChannel.open(home.resolve("launcher.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                lock = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                lockChannel.close();
                lockChannel = null;
                throw new IllegalStateException("another launcher runs a platform on " + home
                        + "; stop it first, or give this one another home");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + home, e);
        }
    }

    private void unlock() {
        synchronized (startLock) {
            try {
                if (lock != null) {
                    lock.release();
                }
                if (lockChannel != null) {
                    lockChannel.close();
                }
            } catch (IOException e) {
                // the lock goes with the channel or the process
            }
            lock = null;
            lockChannel = null;
        }
    }

    /**
     * The directories of the home that hold other tenants' data (the services' logs, Kafka's, scratch files, pids) or
     * programs root runs (PostgreSQL's binaries, in a directory zonky makes world-writable at each start).
     */
    static final List<String> OWNER_ONLY = List.of("logs", "kafka", "tmp", "run", "postgres");

    /** Where PostgreSQL's binaries are unpacked: under an owner-only directory ({@link #OWNER_ONLY}). */
    static Path postgresBinaries(Path home) {
        return home.resolve("postgres").resolve("binaries");
    }

    /** Where earlier launchers unpacked them: world-writable, so closed to others where it is still there. */
    private static final String OLD_POSTGRES_BINARIES = "postgres-binaries";

    /**
     * The home as jobs on its agents may see it: the agents' sandboxed jobs run as other uids on this machine and
     * must reach their working directories under {@code workers/}, so the home stays traversable (0711, not
     * listable), but the logs (every tenant's job ids and names), Kafka's data (every tenant's events), the
     * services' scratch files and the pid files are the launcher's user's alone (0700), and so is the directory of
     * PostgreSQL's binaries, which root runs: zonky makes it world-writable, where another user could swap them.
     * Postgres keeps its data directory 0700 itself; the tokens are files of their own, 0600.
     */
    static void closeToOthers(Path home) {
        try {
            Files.createDirectories(home);
            Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx--x--x"));
            for (String dir : OWNER_ONLY) {
                Path path = Files.createDirectories(home.resolve(dir));
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwx------"));
            }
            Path old = home.resolve(OLD_POSTGRES_BINARIES);
            if (Files.isDirectory(old, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(old, PosixFilePermissions.fromString("rwx------"));
            }
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: nothing to close
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close " + home + " to other users", e);
        }
    }

    /** A token kept under the home (owner-only), made on first use: the same on every run over the same data. */
    private String keptSecret(String file) {
        Path path = home.resolve(file);
        try {
            if (Files.isRegularFile(path)) {
                String kept = Files.readString(path, StandardCharsets.UTF_8).strip();
                if (!kept.isEmpty()) {
                    return kept;
                }
            }
            Files.createDirectories(home);
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            Files.deleteIfExists(path);
            try {
                Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(path);
            }
            Files.writeString(path, token + "\n", StandardCharsets.UTF_8);
            return token;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep a token in " + path, e);
        }
    }

    /** How the platform is laid out. Everything has a default; {@link #build()} starts nothing. */
    public static final class Builder {
        private Path home = Path.of(".local");
        private Path repository = Path.of("");
        private int workers = 2;
        private String databaseUrl;
        private String databaseUser;
        private String databasePassword;
        private String kafkaBootstrapServers;
        private String adminToken;
        private String joinToken;
        private String internalSecret;
        private int portOffset;
        private String bindAddress = LOOPBACK;
        private int postgresPort;
        private String agentCpu = "2";
        private long agentMemoryMb = 2048;
        private List<String> serviceJvmOptions = SERVICE_JVM_OPTIONS;
        private List<String> agentJvmOptions = AGENT_JVM_OPTIONS;
        private List<String> kafkaJvmOptions = KAFKA_JVM_OPTIONS;
        private final Map<String, List<String>> serviceArgs = new HashMap<>();
        private final Map<String, Integer> replicas = new HashMap<>();
        private final List<String> agentArgs = new ArrayList<>();
        private BiFunction<Integer, List<Integer>, Integer> agentSchedulerPort = (agent, ports) -> ports.get(0);
        private BiFunction<String, List<Integer>, Integer> serviceUpstream = (service, ports) -> ports.get(0);
        private int serviceDatabasePort;
        private final Set<String> without = new LinkedHashSet<>();
        private String classPath = System.getProperty("java.class.path");
        private boolean classDataSharing;
        private Duration startTimeout = Duration.ofSeconds(120);
        private Duration stopTimeout = Duration.ofSeconds(20);
        private Listener listener = new Listener() {
        };

        private Builder() {
        }

        /** Where data, logs, work directories and kept tokens live; default {@code .local}. */
        public Builder home(Path home) {
            this.home = home;
            return this;
        }

        /** The repository root, where the modules' {@code target/} jars are; default the current directory. */
        public Builder repository(Path repository) {
            this.repository = repository;
            return this;
        }

        /** How many worker agents; default 2. */
        public Builder workers(int workers) {
            if (workers < 0) {
                throw new IllegalArgumentException("workers must not be negative: " + workers);
            }
            this.workers = workers;
            return this;
        }

        /** An external PostgreSQL (JDBC URL) instead of the embedded one. */
        public Builder databaseUrl(String url) {
            this.databaseUrl = blankToNull(url);
            return this;
        }

        public Builder databaseUser(String user) {
            this.databaseUser = user;
            return this;
        }

        public Builder databasePassword(String password) {
            this.databasePassword = password;
            return this;
        }

        /** External Kafka brokers instead of the local one. */
        public Builder kafkaBootstrapServers(String servers) {
            this.kafkaBootstrapServers = blankToNull(servers);
            return this;
        }

        /** The bootstrap admin token; default one generated and kept in {@code <home>/admin-token}. */
        public Builder adminToken(String token) {
            this.adminToken = blankToNull(token);
            return this;
        }

        /** The secret the gateway signs callers' identities with for the services; default one generated and kept in {@code <home>/internal-secret}. */
        public Builder internalSecret(String secret) {
            this.internalSecret = blankToNull(secret);
            return this;
        }

        /** The agents' join token; default one generated and kept in {@code <home>/join-token}. */
        public Builder joinToken(String token) {
            this.joinToken = blankToNull(token);
            return this;
        }

        /**
         * Added to every default port (services 8080–8083, PostgreSQL 55432, Kafka 59092 and 59093), so that
         * two platforms can run side by side; default 0.
         */
        public Builder portOffset(int offset) {
            if (offset < 0 || KAFKA_CONTROLLER_PORT + offset > 65_535) {
                throw new IllegalArgumentException("the port offset must be between 0 and " + (65_535 - KAFKA_CONTROLLER_PORT)
                        + ", not " + offset);
            }
            this.portOffset = offset;
            return this;
        }

        /**
         * The address the services listen on, their management ports too; default {@value #LOOPBACK}, as
         * {@code docker-compose.yml} publishes its ports: a neighbour on the network reaches nothing of a developer's
         * platform (the agent API, the services, their metrics) unless this says so ({@code 0.0.0.0}: every address).
         */
        public Builder bindAddress(String address) {
            this.bindAddress = address == null || address.isBlank() ? LOOPBACK : address.strip();
            return this;
        }

        /** The embedded PostgreSQL's port; default 55432 (plus the offset), or a free one when that is taken. */
        public Builder postgresPort(int port) {
            this.postgresPort = port;
            return this;
        }

        /** What each agent offers; default 2 cores and 2048 MiB (no GPU). */
        public Builder agentResources(String cpu, long memoryMb) {
            this.agentCpu = cpu;
            this.agentMemoryMb = memoryMb;
            return this;
        }

        public Builder serviceJvmOptions(List<String> options) {
            this.serviceJvmOptions = List.copyOf(options);
            return this;
        }

        public Builder agentJvmOptions(List<String> options) {
            this.agentJvmOptions = List.copyOf(options);
            return this;
        }

        public Builder kafkaJvmOptions(List<String> options) {
            this.kafkaJvmOptions = List.copyOf(options);
            return this;
        }

        /** More command-line arguments for one service ({@code --jobs.agent.lease-ttl=3s}); they win over the defaults. */
        public Builder serviceArgs(String service, String... args) {
            serviceArgs.computeIfAbsent(service, s -> new ArrayList<>()).addAll(List.of(args));
            return this;
        }

        /**
         * Runs {@code n} replicas of a service side by side (the first named as the service, the others
         * {@code service-2}, … on ports {@link #REPLICA_PORT_DISTANCE} apart), each a process of its own on the same
         * database; agents are spread over the scheduler's replicas, and the gateway routes to the first replica of
         * each service, or to what {@link #serviceUpstream} says. Not for the gateway: clients reach one.
         */
        public Builder replicas(String service, int n) {
            if (n < 1 || API_GATEWAY.equals(service) || SERVICES.stream().noneMatch(s -> s.name().equals(service))) {
                throw new IllegalArgumentException("replicas are 1 or more of job-service, scheduler-service or"
                        + " reconciler-service, not " + n + " of " + service);
            }
            replicas.put(service, n);
            return this;
        }

        /** More command-line arguments for every agent ({@code --jobs.worker.kill-grace=2s}). */
        public Builder agentArgs(String... args) {
            agentArgs.addAll(List.of(args));
            return this;
        }

        /**
         * The port agent {@code i} (from 1) dials for the scheduler, given the scheduler replicas' ports (the agent's
         * own replica first): a relay of the caller's between them (a fault test's partitions, a balancer over the
         * replicas as a Kubernetes Service is); default the agent's own replica.
         */
        public Builder agentSchedulerPort(BiFunction<Integer, List<Integer>, Integer> portOfAgent) {
            this.agentSchedulerPort = portOfAgent;
            return this;
        }

        /**
         * The port the gateway dials for a service, given its replicas' ports: a balancer of the caller's in front of
         * them, as a Kubernetes Service is; default the first replica's.
         */
        public Builder serviceUpstream(BiFunction<String, List<Integer>, Integer> portOfService) {
            this.serviceUpstream = portOfService;
            return this;
        }

        /** The port the services dial for the embedded PostgreSQL (a relay of the caller's to {@link #postgresPort}). */
        public Builder serviceDatabasePort(int port) {
            this.serviceDatabasePort = port;
            return this;
        }

        /** Services not to run even when built. */
        public Builder without(String... services) {
            without.addAll(List.of(services));
            return this;
        }

        /** The class path the Kafka broker runs from; default this JVM's, which must hold the Kafka server jars. */
        public Builder kafkaClassPath(String classPath) {
            this.classPath = classPath;
            return this;
        }

        /**
         * Whether services and agents run from an extracted copy of their jar with a class-data archive each,
         * kept under the home: about half the CPU time to start from the second start on, for the cost of an
         * extraction after each build, a slower first stop (the archives are written then) and some 600 MB
         * under the home. Default false: {@code java -jar <jar>}. bin/run-local turns it on.
         */
        public Builder classDataSharing(boolean enabled) {
            this.classDataSharing = enabled;
            return this;
        }

        /** How long one component may take to come up; default 120 s. */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = timeout;
            return this;
        }

        /** How long one component has between SIGTERM and SIGKILL; default 20 s. */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = timeout;
            return this;
        }

        public Builder listener(Listener listener) {
            this.listener = Objects.requireNonNull(listener);
            return this;
        }

        public LocalPlatform build() {
            return new LocalPlatform(this);
        }

        private static String blankToNull(String s) {
            return s == null || s.isBlank() ? null : s;
        }
    }
}
