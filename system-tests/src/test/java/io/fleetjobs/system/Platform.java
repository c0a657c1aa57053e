package io.fleetjobs.system;

import io.fleetjobs.jobservice.JobServiceApplication;
import io.fleetjobs.local.LocalPlatform;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.reconciler.ReconcilerApplication;
import io.fleetjobs.scheduler.service.SchedulerApplication;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TestDatabases;
import io.fleetjobs.testsupport.TestKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The platform for end-to-end tests: job-service, scheduler-service and reconciler-service on a real PostgreSQL and a
 * real Kafka broker, the api-gateway in front of them as a process of its own ({@code api-gateway-exec.jar}), and
 * worker agents as separate processes ({@code worker-agent.jar}) that run real jobs. Clients go through the
 * gateway, as outside clients must.
 */
final class Platform implements AutoCloseable {
    static final String ADMIN_TOKEN = "e2e-admin-token-0123456789";
    static final String JOIN_TOKEN = "e2e-join-token-0123456789";
    static final String INTERNAL_SECRET = "e2e-internal-secret-0123456789";

    private final TestDatabases.Database db = TestDatabases.create();
    private final TestKafka kafka = new TestKafka(JobEvent.TOPIC).start();
    private final ConfigurableApplicationContext jobService;
    private final ConfigurableApplicationContext scheduler;
    private final ConfigurableApplicationContext reconciler;
    private final Process gateway;
    private final int gatewayPort;
    private final int gatewayManagementPort;
    private final List<AgentProcess> agents = new ArrayList<>();
    final Api admin;

    Platform(Map<String, String> overrides) {
        this(overrides, Map.of());
    }

    /** {@code gatewayOverrides}: properties of the gateway ({@code jobs.gateway.rate-limit...}). */
    Platform(Map<String, String> overrides, Map<String, String> gatewayOverrides) {
        Map<String, Object> common = new HashMap<>();
        common.put("spring.datasource.url", db.url());
        common.put("spring.datasource.username", db.user());
        common.put("spring.datasource.password", db.password());
        common.put("spring.kafka.bootstrap-servers", kafka.bootstrapServers());
        common.put("server.port", "0");
        // the actuator's own port (prometheus, metrics, info), free and different for each service and replica
        common.put("management.server.port", "0");
        common.put("jobs.outbox.poll-interval", "100ms");
        common.put("jobs.internal-secret", INTERNAL_SECRET);
        common.putAll(overrides);
        Map<String, Object> js = new HashMap<>(common);
        js.put("jobs.bootstrap-admin-token", ADMIN_TOKEN);
        jobService = new SpringApplicationBuilder(JobServiceApplication.class).run(args(js));
        Map<String, Object> ss = new HashMap<>(common);
        ss.put("jobs.agent.join-token", JOIN_TOKEN);
        scheduler = new SpringApplicationBuilder(SchedulerApplication.class).run(args(ss));
        reconciler = new SpringApplicationBuilder(ReconcilerApplication.class).run(args(common));
        gatewayPort = freePort();
        gatewayManagementPort = freePort();
        gateway = startGateway(gatewayOverrides);
        admin = new Api(gatewayPort, ADMIN_TOKEN);
    }

    int gatewayPort() {
        return gatewayPort;
    }

    int jobServicePort() {
        return port(jobService);
    }

    /** The gateway's management port: its {@code /actuator/prometheus}; the public port has health only. */
    int gatewayManagementPort() {
        return gatewayManagementPort;
    }

    int jobServiceManagementPort() {
        return managementPort(jobService);
    }

    int schedulerManagementPort() {
        return managementPort(scheduler);
    }

    int reconcilerManagementPort() {
        return managementPort(reconciler);
    }

    /** The gateway as a process, as it runs in production; up once its health answers. */
    private Process startGateway(Map<String, String> overrides) {
        Path jar = Path.of("..", "api-gateway", "target", "api-gateway-exec.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: build api-gateway first");
        }
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("server.port", Integer.toString(gatewayPort));
        settings.put("management.server.port", Integer.toString(gatewayManagementPort));
        settings.put("jobs.gateway.job-service-url", "http://127.0.0.1:" + port(jobService));
        settings.put("jobs.gateway.scheduler-url", "http://127.0.0.1:" + port(scheduler));
        settings.putAll(overrides);
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + Path.of("target").toAbsolutePath(), "-jar", jar.toString()));
        settings.forEach((k, v) -> command.add("--" + k + "=" + v));
        Path log = Path.of("target", "gateway-" + gatewayPort + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("JOBS_DB_URL", db.url());
        builder.environment().put("JOBS_DB_USER", db.user());
        builder.environment().put("JOBS_DB_PASSWORD", db.password());
        builder.environment().put("JOBS_INTERNAL_SECRET", INTERNAL_SECRET);
        Process p;
        try {
            p = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Api probe = new Api(gatewayPort, null);
        try {
            Awaitility.await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> {
                        if (!p.isAlive()) {
                            throw new IllegalStateException("the gateway exited; see " + log.toAbsolutePath());
                        }
                        return probe.get("/actuator/health").status() == 200;
                    });
        } catch (RuntimeException e) {
            p.destroyForcibly();
            throw new IllegalStateException("the gateway did not come up; see " + log.toAbsolutePath(), e);
        }
        return p;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The base URL API clients (the SDK, jobctl) are given: the gateway's, as outside clients use. */
    String clientUrl() {
        return "http://127.0.0.1:" + gatewayPort;
    }

    int schedulerPort() {
        return port(scheduler);
    }

    int reconcilerPort() {
        return port(reconciler);
    }

    String kafkaBootstrapServers() {
        return kafka.bootstrapServers();
    }

    <T> T jobService(Class<T> bean) {
        return jobService.getBean(bean);
    }

    /** A new tenant and a client holding a user key of it. */
    Api tenant(String name) {
        var created = admin.post("/api/v1/admin/tenants", "{\"name\":\"" + name + "\"}");
        if (created.status() != 201) {
            throw new IllegalStateException("tenant: " + created);
        }
        return admin.as(admin.post("/api/v1/admin/tenants/" + name + "/api-keys", "{}").field("key"));
    }

    /**
     * Starts a worker agent process for a machine, talking to {@code schedulerPort}; {@code extraArgs}
     * ({@code --key=value}) replace the defaults.
     */
    AgentProcess agent(String machineId, int schedulerPort, String... extraArgs) {
        return agent(machineId, schedulerPort, Map.of(), extraArgs);
    }

    /**
     * As {@link #agent(String, int, String...)}, with {@code environment} added to the agent's (a PATH with a
     * stand-in nvidia-smi, say); an extra argument with an empty value ({@code --jobs.worker.gpu-count=}) removes a
     * default, so that the agent detects it.
     */
    AgentProcess agent(String machineId, int schedulerPort, Map<String, String> environment, String... extraArgs) {
        Path jar = Path.of("..", "worker-agent", "target", "worker-agent.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: build worker-agent first");
        }
        Path dir = Path.of("target", "agents", machineId);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("jobs.worker.scheduler-url", "http://127.0.0.1:" + schedulerPort);
        settings.put("jobs.worker.machine-id", machineId);
        settings.put("jobs.worker.region", "local");
        settings.put("jobs.worker.join-token", JOIN_TOKEN);
        settings.put("jobs.worker.cpu", "4");
        settings.put("jobs.worker.memory-mb", "4096");
        settings.put("jobs.worker.gpu-count", "0");
        settings.put("jobs.worker.work-dir", dir.resolve("work").toString());
        settings.put("jobs.worker.heartbeat-interval", "1s");
        settings.put("jobs.worker.kill-grace", "2s");
        for (String arg : extraArgs) { // --key=value, replacing the default of the same key
            int eq = arg.indexOf('=');
            if (eq == arg.length() - 1) {
                settings.remove(arg.substring(2, eq));
            } else {
                settings.put(arg.substring(2, eq), arg.substring(eq + 1));
            }
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-jar", jar.toString()));
        settings.forEach((k, v) -> command.add("--" + k + "=" + v));
        try {
            Files.createDirectories(dir);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("agent.log").toFile()));
            builder.environment().putAll(environment);
            Process p = builder.start();
            AgentProcess agent = new AgentProcess(machineId, p, dir.resolve("agent.log"),
                    Path.of(settings.getOrDefault("jobs.worker.work-dir", dir.resolve("work").toString())).resolve(machineId));
            agents.add(agent);
            return agent;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    record AgentProcess(String machineId, Process process, Path log, Path machineDir) {
        /**
         * SIGKILL, then what the agent would have removed at its stop: the nftables table refusing its attempts this
         * platform's ports, which a later test's jobs may need.
         */
        void kill() {
            process.destroyForcibly();
            process.onExit().join();
            LocalPlatform.removeEgressRules(machineDir);
        }
    }

    /** As command-line arguments, which take precedence over the services' application.yml. */
    private static String[] args(Map<String, Object> properties) {
        return properties.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
    }

    private static int port(ConfigurableApplicationContext context) {
        return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    }

    private static int managementPort(ConfigurableApplicationContext context) {
        return Integer.parseInt(context.getEnvironment().getProperty("local.management.port"));
    }

    @Override
    public void close() {
        agents.forEach(a -> {
            a.process().destroy();
            try {
                a.process().waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            LocalPlatform.removeEgressRules(a.machineDir()); // where its stop could not
        });
        gateway.destroy();
        try {
            if (!gateway.waitFor(20, TimeUnit.SECONDS)) {
                gateway.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reconciler.close();
        scheduler.close();
        jobService.close();
        kafka.close();
    }
}
