package io.fleetjobs.workloads;

import io.fleetjobs.local.LocalPlatform;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole platform started by a workload with {@link LocalPlatform}: the services and the agents as
 * processes, on a fresh database of {@link BenchPostgres} (the same server as every other workload), a
 * local Kafka, ports at a free offset, a home under {@code benchmarks/workloads/target}. The services run as W1 runs them
 * ({@link BurnDown#SERVICE_JVM}: the full JIT, not local mode's quick-start options) with the pools they ship
 * with (gateway 5, job-service 20, scheduler 20, reconciler 4; local mode gives each 5), and the gateway's
 * per-tenant rate limit is lifted (the workloads measure the platform, not the limiter). Workloads call the public API
 * through the gateway as tenant {@code bench} with an API key of its own.
 */
public final class BenchPlatform implements AutoCloseable {
    static final String TENANT = "bench";
    public static final JsonMapper JSON = JsonMapper.builder().build();

    private final LocalPlatform platform;
    private final HttpClient http;
    private final URI base;
    private final String key;

    private BenchPlatform(LocalPlatform platform, HttpClient http, URI base, String key) {
        this.platform = platform;
        this.http = http;
        this.base = base;
        this.key = key;
    }

    /**
     * Starts the platform with {@code agents} agents (more arguments for each in {@code agentArgs}) on a
     * fresh database named {@code database}, and makes the tenant and its key.
     */
    public static BenchPlatform start(BenchPostgres pg, String database, int agents, List<String> agentArgs)
            throws Exception {
        return start(pg, database, agents, agentArgs, List.of());
    }

    /** The same, with more arguments for the scheduler in {@code schedulerArgs}. */
    public static BenchPlatform start(BenchPostgres pg, String database, int agents, List<String> agentArgs,
            List<String> schedulerArgs) throws Exception {
        List<String> scheduler = new ArrayList<>(List.of("--spring.datasource.hikari.maximum-pool-size=20"));
        scheduler.addAll(schedulerArgs);
        String url = pg.createDatabase(database);
        Path home = Path.of("benchmarks", "workloads", "target", "platform-" + database).toAbsolutePath();
        deleteTree(home);
        Files.createDirectories(home);
        LocalPlatform platform = LocalPlatform.builder()
                .home(home)
                .repository(snapshotJars(home.resolve("repository")))
                .workers(agents)
                .databaseUrl(url)
                .databaseUser(pg.user())
                .databasePassword(pg.password())
                .portOffset(freePortOffset())
                .kafkaClassPath(classPath())
                .serviceJvmOptions(BurnDown.serviceJvm())
                .serviceArgs(LocalPlatform.API_GATEWAY, "--jobs.gateway.rate-limit.requests-per-second=1000000",
                        "--jobs.gateway.rate-limit.burst=1000000", "--spring.datasource.hikari.maximum-pool-size=5")
                .serviceArgs(LocalPlatform.JOB_SERVICE, "--spring.datasource.hikari.maximum-pool-size=20")
                .serviceArgs(LocalPlatform.SCHEDULER_SERVICE, scheduler.toArray(String[]::new))
                .serviceArgs(LocalPlatform.RECONCILER_SERVICE, "--spring.datasource.hikari.maximum-pool-size=4")
                .agentArgs(agentArgs.toArray(String[]::new))
                // an agent here may play a thousand simulated machines and their attempts: local mode's 96 MiB heap
                // made it collect so often that its agents' leases ran out and they fenced (packing-fleet, 1,000)
                .agentJvmOptions(BurnDown.SERVICE_JVM)
                .startTimeout(Duration.ofSeconds(240))
                .stopTimeout(Duration.ofSeconds(15))
                .build();
        try {
            platform.start();
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            URI base = platform.url();
            BenchPlatform admin = new BenchPlatform(platform, http, base, platform.adminToken());
            HttpResponse<String> tenant = admin.post("/api/v1/admin/tenants", "{\"name\":\"" + TENANT + "\",\"weight\":1}");
            check(tenant, 201);
            HttpResponse<String> key = admin.post("/api/v1/admin/tenants/" + TENANT + "/api-keys", "{}");
            check(key, 201);
            return new BenchPlatform(platform, http, base, JSON.readTree(key.body()).get("key").asString());
        } catch (Exception | Error e) {
            platform.close();
            throw e;
        }
    }

    /** The runnable jars the platform starts, as LocalPlatform finds them under a repository root. */
    static final List<String> JARS = List.of("job-service/target/job-service-exec.jar",
            "scheduler-service/target/scheduler-service-exec.jar",
            "reconciler-service/target/reconciler-service-exec.jar", "api-gateway/target/api-gateway-exec.jar",
            "worker-agent/target/worker-agent.jar");

    /**
     * Copies of the built jars under {@code dir}, laid out as in the repository, for the platform to run
     * from: a jar rebuilt in the work tree while a workload runs (another build on the same tree) would
     * otherwise fail the running JVMs' class loading part way.
     */
    static Path snapshotJars(Path dir) throws IOException {
        for (String jar : JARS) {
            Path from = Path.of(jar);
            if (Files.exists(from)) {
                Path to = dir.resolve(jar);
                Files.createDirectories(to.getParent());
                Files.copy(from, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return dir.toAbsolutePath();
    }

    /** A platform's description for the table's header. */
    String describe() {
        return "platform: " + platform.components() + ", services " + String.join(" ", BurnDown.SERVICE_JVM)
                + ", pools gateway 5, job-service 20, scheduler 20, reconciler 4; rate limit lifted; gateway " + base;
    }

    Path home() {
        return platform.home();
    }

    public HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        HttpRequest request = request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    public JsonNode getJson(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = get(path);
        check(r, 200);
        return JSON.readTree(r.body());
    }

    /** How many of the tenant's jobs are in {@code state} now (pages of 500). */
    long count(String state) throws IOException, InterruptedException {
        long n = 0;
        String token = null;
        do {
            JsonNode page = getJson("/api/v1/jobs?state=" + state + "&limit=500"
                    + (token == null ? "" : "&pageToken=" + java.net.URLEncoder.encode(token, java.nio.charset.StandardCharsets.UTF_8)));
            n += page.get("items").size();
            JsonNode next = page.get("nextPageToken");
            token = next == null || next.isNull() || next.asString().isEmpty() ? null : next.asString();
        } while (token != null);
        return n;
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key);
    }

    public static void check(HttpResponse<String> r, int expected) {
        if (r.statusCode() != expected) {
            throw new IllegalStateException(r.request().method() + " " + r.request().uri() + ": " + r.statusCode()
                    + " " + r.body());
        }
    }

    /** The CPU time each of the platform's processes has used so far, by component. */
    Map<String, Duration> cpu() {
        return CpuSplit.processes(platform, Map.of());
    }

    @Override
    public void close() {
        platform.close();
    }

    /**
     * The class path the Kafka broker runs from: this JVM's when it holds Kafka, else the class loaders' (as
     * when run by {@code exec:java}, whose JVM class path is Maven's own).
     */
    static String classPath() {
        String own = System.getProperty("java.class.path", "");
        if (own.contains("kafka")) {
            return own;
        }
        List<String> entries = new ArrayList<>();
        for (ClassLoader l = BenchPlatform.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader loader) {
                for (URL url : loader.getURLs()) {
                    try {
                        entries.add(Path.of(url.toURI()).toString());
                    } catch (URISyntaxException | IllegalArgumentException e) {
                        // not a file: not for a class path
                    }
                }
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static int freePortOffset() {
        for (int i = 0; i < 50; i++) {
            int offset = 1000 + ThreadLocalRandom.current().nextInt(5000);
            if (Stream.of(8080, 8081, 8082, 8083, 55432, 59092, 59093).allMatch(p -> portFree(p + offset))) {
                return offset;
            }
        }
        throw new IllegalStateException("no free range of ports for the platform");
    }

    private static boolean portFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
