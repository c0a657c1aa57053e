package io.fleetjobs.workloads;

import io.fleetjobs.migrations.Migrate;
import io.fleetjobs.local.LocalPlatform;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.postgresql.PGConnection;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * W1, burn-down: {@code jobs} no-op jobs preloaded as QUEUED rows (as the job-service leaves them once admitted:
 * the row, its two history rows), then the platform's services as processes ({@link LocalPlatform}, no agents)
 * and the fleet simulator playing {@code machines} machines of 64 cores drain them end to end: placement,
 * start, report, completion. Prints jobs/s from the first placement to the last completion (the database's
 * own timestamps), commits and WAL bytes per job over the drain, and the per-phase rates.
 *
 * <pre>
 *   benchmarks/run w1 [jobs] [machines] [never-fitting]      defaults 200000 100 0
 * </pre>
 *
 * <p>{@code never-fitting} jobs more, submitted before the others (older ids, as a backlog that piled up earlier), ask
 * for a GPU model no machine has: they stay QUEUED, are found to fit nowhere and wait out backoffs throughout the run,
 * as jobs for a model a GPU fleet lacks do. The drain ends when every other job has ended.
 *
 * <p>Preloading is not measured. The preloaded jobs' history rows carry no events (and the relay's cursor is moved past
 * them): their SUBMITTED and QUEUED events would only load the relay during the drain with events of a phase that is
 * not being measured.
 */
public final class BurnDown {
    static final String DATABASE = "w1";
    static final int MACHINE_CORES = 64;
    static final long MACHINE_MEMORY_MB = 262_144;
    static final String REGION = "w1";
    static final String SIMULATOR = "fleet simulator";
    static final String ADMITTED = "admitted; waiting for placement";
    /** The spec as job-service stores it: complete, defaults filled in, properties in alphabetical order. */
    static final String SPEC = "{\"execution\":{\"command\":[\"true\"],\"env\":{},\"timeoutSeconds\":null},"
            + "\"labels\":{},\"name\":\"w1-noop\",\"placement\":{\"labels\":{},\"region\":null,\"strategy\":null},"
            + "\"priority\":500,\"queue\":\"default\",\"resources\":{\"cpu\":1,\"gpuCount\":0,\"gpuType\":null,"
            + "\"memoryMb\":64},\"retry\":{\"backoffSeconds\":5,\"maxAttempts\":3,\"maxBackoffSeconds\":300,"
            + "\"retryOnExitCodes\":[]}}";
    /** The services' JVMs: local mode's small serial heap, but with the C2 compiler (a throughput run). */
    static final List<String> SERVICE_JVM = List.of("-Xms64m", "-Xmx512m", "-XX:+UseSerialGC");
    private static final int BATCH = 10_000;

    /** {@link #SERVICE_JVM}, recording with JFR where {@link #recording} says. */
    static List<String> serviceJvm() {
        List<String> options = new ArrayList<>(SERVICE_JVM);
        options.addAll(recording());
        return options;
    }
    private static final Duration LIMIT = Duration.ofMinutes(20);
    private static final SecureRandom RANDOM = new SecureRandom();

    private BurnDown() {
    }

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int machines = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int neverFitting = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        Path repository = repository();
        Path home = repository.resolve("benchmarks/workloads/target/w1");
        Files.createDirectories(home);
        try (BenchPostgres pg = BenchPostgres.start()) {
            String url = pg.createDatabase(DATABASE);
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl(url);
            ds.setUser(pg.user());
            ds.setPassword(pg.password());
            Migrate.apply(ds);
            long preloadStart = System.nanoTime();
            preload(pg, neverFitting, NEVER_FITS);
            preload(pg, jobs);
            System.out.printf("preloaded %d QUEUED jobs (and %d that can never fit) in %.1f s%n", jobs, neverFitting,
                    (System.nanoTime() - preloadStart) / 1e9);

            LocalPlatform platform = LocalPlatform.builder().home(home.resolve("home")).repository(repository)
                    .workers(0).databaseUrl(url).databaseUser(pg.user()).databasePassword(pg.password())
                    .portOffset(1300).startTimeout(Duration.ofMinutes(5)).serviceJvmOptions(serviceJvm())
                    // the pools the services ship with, not local mode's 5 (a hundred machines' heartbeats starve 5)
                    .serviceArgs(LocalPlatform.SCHEDULER_SERVICE, "--spring.datasource.hikari.maximum-pool-size=20")
                    .serviceArgs(LocalPlatform.JOB_SERVICE, "--spring.datasource.hikari.maximum-pool-size=20")
                    .listener(new LocalPlatform.Listener() {
                        @Override
                        public void ready(String component, String address, Duration took) {
                            System.out.printf("  %-20s ready %s (%.1f s)%n", component, address, took.toMillis() / 1e3);
                        }
                    }).build();
            Process[] simulator = new Process[1];
            Thread cleanUp = new Thread(() -> { // Ctrl-C: leave no process behind
                if (simulator[0] != null) {
                    simulator[0].destroyForcibly();
                }
                platform.close();
            });
            Runtime.getRuntime().addShutdownHook(cleanUp);
            try (platform) {
                platform.start();
                Path csv = home.resolve("machines.csv");
                writeMachines(csv, machines);
                if (BenchPostgres.profiling()) {
                    pg.resetStatements(DATABASE);
                }
                BenchPostgres.Counters before = pg.counters(DATABASE);
                simulator[0] = startSimulator(repository, platform, csv, home.resolve("simulator.log"));
                List<String> metrics = new ArrayList<>();
                CpuSplit cpuFrom = CpuSplit.of(CpuSplit.processes(platform, java.util.Map.of(SIMULATOR, simulator[0])));
                long drainFrom = System.nanoTime();
                try {
                    awaitDrained(pg, simulator[0], neverFitting);
                    CpuSplit.of(CpuSplit.processes(platform, java.util.Map.of(SIMULATOR, simulator[0])))
                            .print(cpuFrom, jobs, "job", Duration.ofNanos(System.nanoTime() - drainFrom));
                    // read while the simulated machines still beat: once they stop, the reconciler suspects each
                    metrics.add(metrics(platform.managementUrl(LocalPlatform.SCHEDULER_SERVICE), "scheduler-service"));
                    metrics.add(metrics(platform.managementUrl(LocalPlatform.JOB_SERVICE), "job-service"));
                    metrics.add(metrics(platform.managementUrl(LocalPlatform.RECONCILER_SERVICE), "reconciler-service"));
                } finally {
                    simulator[0].destroy();
                    simulator[0].waitFor();
                }
                BenchPostgres.Counters spent = pg.counters(DATABASE).minus(before);
                report(pg, jobs, machines, spent);
                if (BenchPostgres.profiling()) {
                    pg.printStatements(DATABASE, jobs);
                    pg.printWalByRelation(DATABASE, spent.lsn(), jobs);
                }
                metrics.forEach(System.out::print);
            } finally {
                Runtime.getRuntime().removeShutdownHook(cleanUp);
            }
        }
    }

    /**
     * With {@code JOBS_BENCH_JFR} set to a folder: the JVM options that make a process record itself with JFR's
     * profiling settings, into a file of its own there (named by its pid), written when it exits.
     */
    static List<String> recording() {
        String folder = System.getenv("JOBS_BENCH_JFR");
        if (folder == null || folder.isBlank()) {
            return List.of();
        }
        return List.of("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                + Path.of(folder).toAbsolutePath().resolve("%p.jfr"));
    }

    /** The repository root: where benchmarks/run runs from, or two folders above the module. */
    static Path repository() {
        Path here = Path.of("").toAbsolutePath();
        return Files.isDirectory(here.resolve("benchmarks/workloads")) ? here : here.getParent().getParent();
    }

    /** One tenant, then the jobs and their history rows with COPY, {@link #BATCH} jobs a transaction. */
    static void preload(BenchPostgres pg, int jobs) throws SQLException, IOException {
        preload(pg, jobs, NO_OP);
    }

    /** What a preloaded job is called and asks for beyond its core and 64 MB (the copy's columns). */
    private record Kind(String name, String gpus) {
    }

    private static final Kind NO_OP = new Kind("w1-noop", "0,");
    /** One GPU of a model the simulated machines do not have. */
    private static final Kind NEVER_FITS = new Kind("w1-never-fits", "1,B200");

    private static void preload(BenchPostgres pg, int jobs, Kind kind) throws SQLException, IOException {
        if (jobs == 0) {
            return;
        }
        try (Connection c = pg.connect(DATABASE)) {
            UUID tenant;
            try (var s = c.prepareStatement("insert into tenants (id, name, weight, created_at) values (?, 'w1', 1, now())"
                    + " on conflict (name) do update set weight = tenants.weight returning id")) {
                s.setObject(1, UUID.randomUUID());
                try (ResultSet r = s.executeQuery()) {
                    r.next();
                    tenant = r.getObject(1, UUID.class);
                }
            }
            c.setAutoCommit(false);
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            String spec = '"' + SPEC.replace("\"", "\"\"") + '"';
            for (int done = 0; done < jobs; done += BATCH) {
                int n = Math.min(BATCH, jobs - done);
                String now = Instant.now().toString();
                StringBuilder rows = new StringBuilder(n * 512);
                StringBuilder history = new StringBuilder(n * 200);
                for (int i = 0; i < n; i++) {
                    UUID id = uuidV7();
                    rows.append(id).append(',').append(tenant).append(',').append(kind.name()).append(",default,500,")
                            .append(spec).append(",QUEUED,").append(ADMITTED).append(",2,").append(now)
                            .append(",1000,64,").append(kind.gpus()).append(",,,,").append(now).append(',').append(now)
                            .append('\n');
                    history.append(id).append(",1,,SUBMITTED,awaiting admission,").append(now).append('\n');
                    history.append(id).append(",2,SUBMITTED,QUEUED,").append(ADMITTED).append(',').append(now).append('\n');
                }
                copy.copyIn("copy jobs (id, tenant_id, name, queue, priority, spec, state, state_reason, version, not_before,"
                        + " cpu_millis, memory_mb, gpu_count, gpu_type, region, idempotency_key, request_hash, created_at,"
                        + " updated_at) from stdin (format csv)", new StringReader(rows.toString()));
                copy.copyIn("copy job_history (job_id, version, from_state, to_state, reason, at) from stdin (format csv)",
                        new StringReader(history.toString()));
                try (Statement s = c.createStatement()) {
                    // nothing to publish below here (no event waits): the relay need not walk the preloaded rows
                    s.execute("""
                            update event_relay r set position = (select max(position) from job_history)
                            where not exists (select 1 from job_history h where h.position > r.position
                                              and h.event_id is not null)""");
                }
                c.commit();
            }
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("analyze jobs");
                s.execute("analyze job_history");
            }
        }
    }

    /** A time-ordered UUID (version 7), as the services make ids. */
    static UUID uuidV7() {
        long ms = System.currentTimeMillis();
        long msb = (ms << 16) | 0x7000L | (RANDOM.nextInt() & 0x0FFF);
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }

    static void writeMachines(Path csv, int machines) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("id,region,cpu,memoryMb,gpuCount,gpuType,labels");
        for (int i = 1; i <= machines; i++) {
            lines.add(String.format("w1-%04d,%s,%d,%d,0,,pool=w1", i, REGION, MACHINE_CORES, MACHINE_MEMORY_MB));
        }
        Files.write(csv, lines);
    }

    private static Process startSimulator(Path repository, LocalPlatform platform, Path csv, Path log) throws IOException {
        return startSimulator(repository, platform, csv, log, "-Xmx512m");
    }

    /** The fleet simulator playing the machines of {@code csv}, as a process of its own with heap {@code xmx}. */
    static Process startSimulator(Path repository, LocalPlatform platform, Path csv, Path log, String xmx)
            throws IOException {
        Path jar = repository.resolve("worker-agent/target/worker-agent.jar");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", xmx, "-XX:+UseSerialGC"));
        command.addAll(recording());
        command.addAll(List.of("-jar", jar.toString(),
                "--jobs.worker.simulate.machines=" + csv,
                "--jobs.worker.scheduler-url=" + platform.url(LocalPlatform.SCHEDULER_SERVICE),
                "--jobs.worker.join-token=" + platform.joinToken(), "--jobs.worker.join-timeout=5m"));
        System.out.printf("fleet simulator: %s (log %s)%n", csv, log);
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /**
     * Waits until every job has ended: a cheap look every 2 s (the first live job in an index of them), the counts by
     * state every 20 s (a scan of the whole table, 154 ms of the server a call at 50,000 jobs: every 2 s it was the
     * fourth costliest statement of a W1 profile, and the load generator's, not the platform's).
     */
    private static void awaitDrained(BenchPostgres pg, Process simulator, int neverFitting) throws Exception {
        Instant deadline = Instant.now().plus(LIMIT);
        Instant nextCount = Instant.now();
        try (Connection c = pg.connect(DATABASE); Statement s = c.createStatement()) {
            while (true) {
                boolean drained;
                // each on a partial index of the live jobs (jobs_claim, jobs_live)
                String live = "not exists (select 1 from jobs where state in ('SUBMITTED', 'SCHEDULED', 'RUNNING'))";
                try (ResultSet r = s.executeQuery("select " + live
                        + (neverFitting == 0 ? " and not exists (select 1 from jobs where state = 'QUEUED')" : ""))) {
                    r.next();
                    drained = r.getBoolean(1);
                }
                if (drained && neverFitting > 0) { // no job is live: count those left QUEUED (a scan, but rarely)
                    try (ResultSet r = s.executeQuery("select count(*) = " + neverFitting + " from jobs where state = 'QUEUED'")) {
                        r.next();
                        drained = r.getBoolean(1);
                    }
                }
                if (drained || !Instant.now().isBefore(nextCount)) {
                    nextCount = Instant.now().plusSeconds(20);
                    try (ResultSet r = s.executeQuery("select count(*) filter (where state = 'QUEUED'),"
                            + " count(*) filter (where state in ('SCHEDULED', 'RUNNING')),"
                            + " count(*) filter (where state = 'SUCCEEDED'),"
                            + " count(*) filter (where state in ('FAILED', 'CANCELED')) from jobs")) {
                        r.next();
                        System.out.printf("  %s  queued %d, placed %d, succeeded %d, failed %d%n", Instant.now(),
                                r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4));
                    }
                }
                if (drained) {
                    return;
                }
                if (!simulator.isAlive()) {
                    throw new IllegalStateException("the fleet simulator exited (" + simulator.exitValue() + "); see its log");
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("not drained within " + LIMIT);
                }
                Thread.sleep(2_000);
            }
        }
    }

    private static void report(BenchPostgres pg, int jobs, int machines, BenchPostgres.Counters spent) throws SQLException {
        try (Connection c = pg.connect(DATABASE); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select (select extract(epoch from max(finished_at) - min(scheduled_at))"
                        + " from attempts), (select extract(epoch from max(scheduled_at) - min(scheduled_at)) from attempts),"
                        + " (select extract(epoch from max(finished_at) - min(finished_at)) from jobs),"
                        + " (select count(*) from attempts), (select count(*) from jobs where state = 'SUCCEEDED')")) {
            r.next();
            double wall = r.getDouble(1);
            double placing = r.getDouble(2);
            double finishing = r.getDouble(3);
            long attempts = r.getLong(4);
            long succeeded = r.getLong(5);
            System.out.println();
            System.out.println("W1 burn-down, " + pg.describe());
            System.out.println("| jobs | machines | wall (s) | jobs/s | commits/job | WAL bytes/job | placed/s | succeeded/s |");
            System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
            System.out.printf("| %d | %d x %d cores | %.1f | %.0f | %.2f | %.0f | %.0f | %.0f |%n", jobs, machines,
                    MACHINE_CORES, wall, succeeded / wall, spent.commits() / (double) jobs, spent.walBytes() / (double) jobs,
                    attempts / placing, succeeded / finishing);
            System.out.printf("(wall: first placement to last completion; %d attempts, %d succeeded)%n", attempts, succeeded);
        }
        try (Connection c = pg.connect(DATABASE); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select state, coalesce(failure_reason, '-'), count(*) from attempts"
                        + " where state <> 'SUCCEEDED' group by 1, 2 order by 3 desc")) {
            while (r.next()) {
                System.out.printf("  attempts %s (%s): %d%n", r.getString(1), r.getString(2), r.getLong(3));
            }
        }
    }

    /** The scheduler's and outbox's own metrics, as a hint of where the time goes: the lines to print. */
    private static String metrics(URI service, String name) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(service.resolve("/actuator/prometheus")).build(), HttpResponse.BodyHandlers.ofString());
            StringBuilder out = new StringBuilder("\n" + name + " /actuator/prometheus (" + r.statusCode()
                    + "), scheduler/outbox/jobs lines, read when the last job ended:\n");
            r.body().lines().filter(l -> !l.startsWith("#"))
                    .filter(l -> !l.contains("_bucket{"))
                    .filter(l -> l.startsWith("scheduler") || l.startsWith("outbox") || l.startsWith("jobs_")
                            || l.startsWith("placement") || l.startsWith("reconciler") || l.startsWith("agent_")
                            || (l.startsWith("http_server_requests_seconds") && l.contains("/agent/v1/heartbeat")))
                    .limit(60).forEach(l -> out.append("  ").append(l).append('\n'));
            return out.toString();
        } catch (IOException | InterruptedException e) {
            return name + " metrics: " + e + "\n";
        }
    }
}
