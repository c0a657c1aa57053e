package io.fleetjobs.workloads;

import io.fleetjobs.local.LocalPlatform;
import io.fleetjobs.migrations.Migrate;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * W4, fleet scale: {@code machines} simulated machines (one fleet-simulator process) join the platform, stay idle for
 * {@code idle} seconds, then drain {@code jobs} preloaded no-op jobs as W1 does. Sampled every five seconds from the
 * services' own metrics and the scheduler's process: heartbeats received a second, the scheduler's CPU per heartbeat,
 * its heap, the heartbeat answer's p99 (from the request histogram), and machines the platform declared SUSPECT or
 * LOST, or drained, although every simulated agent is healthy: the target is 0. Then placements a second while the
 * jobs drain.
 *
 * <pre>
 *   benchmarks/run w4 [machines] [idle-seconds] [jobs]      defaults 10000 300 20000
 * </pre>
 */
public final class FleetScale {
    private static final Duration SAMPLE = Duration.ofSeconds(5);
    private static final Duration JOIN_LIMIT = Duration.ofMinutes(15);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** A busy service answers its metrics late; a sample it cannot give in time is skipped, not waited for. */
    private static final Duration METRICS_TIMEOUT = Duration.ofSeconds(20);

    private FleetScale() {
    }

    /** What one phase saw. */
    record Phase(String name, double seconds, double heartbeatsPerSecond, double cpuMsPerHeartbeat, double heapMaxMib,
            double heartbeatP99Ms, long suspect, long lost, long drained) {
    }

    public static void main(String[] args) throws Exception {
        int machines = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int idleSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        int jobs = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        Path repository = BurnDown.repository();
        Path home = repository.resolve("benchmarks/workloads/target/w4");
        BenchPlatform.deleteTree(home);
        Files.createDirectories(home);
        try (BenchPostgres pg = BenchPostgres.start()) {
            String url = pg.createDatabase(BurnDown.DATABASE);
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl(url);
            ds.setUser(pg.user());
            ds.setPassword(pg.password());
            Migrate.apply(ds);
            LocalPlatform platform = LocalPlatform.builder().home(home.resolve("home")).repository(repository)
                    .workers(0).databaseUrl(url).databaseUser(pg.user()).databasePassword(pg.password())
                    .portOffset(1400).startTimeout(Duration.ofMinutes(5)).serviceJvmOptions(BurnDown.SERVICE_JVM)
                    .serviceArgs(LocalPlatform.SCHEDULER_SERVICE, "--spring.datasource.hikari.maximum-pool-size=20",
                            "--management.metrics.distribution.percentiles-histogram.http.server.requests=true")
                    .serviceArgs(LocalPlatform.JOB_SERVICE, "--spring.datasource.hikari.maximum-pool-size=20")
                    .build();
            Path csv = home.resolve("machines.csv");
            BurnDown.writeMachines(csv, machines);
            try (platform) {
                platform.start();
                Process simulator = BurnDown.startSimulator(repository, platform, csv, home.resolve("simulator.log"),
                        "-Xmx" + Math.max(512, machines / 8) + "m");
                try {
                    Instant joinStart = Instant.now();
                    awaitJoined(pg, machines, simulator);
                    double joined = Duration.between(joinStart, Instant.now()).toMillis() / 1e3;
                    System.out.printf("%d machines joined in %.1f s%n", machines, joined);
                    List<Phase> phases = new ArrayList<>();
                    phases.add(measure("idle", platform, pg, Duration.ofSeconds(idleSeconds), () -> false));
                    BurnDown.preload(pg, jobs);
                    Instant loadStart = Instant.now();
                    phases.add(measure("W1 load", platform, pg, Duration.ofMinutes(20),
                            () -> count(pg, "select count(*) from jobs where state = 'SUCCEEDED'") >= jobs));
                    double placing = Duration.between(loadStart, Instant.now()).toMillis() / 1e3;
                    report(machines, joined, phases, jobs, placing, count(pg, "select count(*) from attempts"));
                } finally {
                    simulator.destroy();
                    simulator.waitFor();
                }
            }
        }
    }

    private static void awaitJoined(BenchPostgres pg, int machines, Process simulator) throws Exception {
        Instant deadline = Instant.now().plus(JOIN_LIMIT);
        while (count(pg, "select count(*) from machines where status = 'READY'") < machines) {
            if (!simulator.isAlive() || Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the machines did not all join (simulator alive: " + simulator.isAlive()
                        + "); see its log");
            }
            Thread.sleep(1_000);
        }
    }

    /** Samples the platform every {@link #SAMPLE} for {@code limit} or until {@code done} says so. */
    private static Phase measure(String name, LocalPlatform platform, BenchPostgres pg, Duration limit,
            java.util.function.BooleanSupplier done) throws Exception {
        URI scheduler = platform.managementUrl(LocalPlatform.SCHEDULER_SERVICE);
        URI reconciler = platform.managementUrl(LocalPlatform.RECONCILER_SERVICE);
        ProcessHandle process = platform.process(LocalPlatform.SCHEDULER_SERVICE).orElseThrow();
        Map<String, Double> first = metrics(scheduler);
        Map<String, Double> actionsFirst = metrics(reconciler);
        Duration cpuFirst = process.info().totalCpuDuration().orElse(Duration.ZERO);
        long start = System.nanoTime();
        double heapMax = 0;
        Map<String, Double> last = first;
        while (System.nanoTime() - start < limit.toNanos() && !done.getAsBoolean()) {
            Thread.sleep(SAMPLE.toMillis());
            try {
                last = metrics(scheduler);
            } catch (java.io.IOException e) {
                System.out.printf("  %s %s: no metrics this sample (%s)%n", Instant.now(), name, e);
                continue;
            }
            heapMax = Math.max(heapMax, sum(last, "jvm_memory_used_bytes{area=\"heap\""));
            System.out.printf("  %s %s: %.0f heartbeats, heap %.0f MiB%n", Instant.now(), name,
                    sum(last, heartbeatCount()) - sum(first, heartbeatCount()), heapMax / (1 << 20));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        histogram(process, name);
        double heartbeats = sum(last, heartbeatCount()) - sum(first, heartbeatCount());
        double cpuMs = process.info().totalCpuDuration().orElse(Duration.ZERO).minus(cpuFirst).toMillis();
        Map<String, Double> actions = metrics(reconciler);
        return new Phase(name, seconds, heartbeats / seconds, heartbeats == 0 ? 0 : cpuMs / heartbeats,
                heapMax / (1 << 20), p99Ms(first, last),
                (long) (action(actions, "machine-suspect") - action(actionsFirst, "machine-suspect")),
                (long) (action(actions, "machine-lost") - action(actionsFirst, "machine-lost")),
                count(pg, "select count(*) from machines where auto_drained_at is not null"));
    }

    /**
     * What holds the scheduler's heap at the end of a phase: the live objects' class histogram ({@code jcmd
     * GC.class_histogram}, a full collection first), its first 42 classes and the total written beside the run's logs.
     */
    private static void histogram(ProcessHandle process, String phase) {
        try {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "GC.class_histogram")
                    .redirectErrorStream(true).start();
            List<String> all = new String(p.getInputStream().readAllBytes()).lines().toList();
            p.waitFor();
            List<String> lines = new ArrayList<>(all.subList(0, Math.min(45, all.size())));
            all.stream().filter(l -> l.startsWith("Total")).forEach(lines::add);
            Path out = BurnDown.repository().resolve("benchmarks/workloads/target/w4/heap-" + phase.replace(' ', '-') + ".txt");
            Files.write(out, lines);
            System.out.printf("  scheduler heap histogram at the end of %s: %s (%s)%n", phase, out,
                    lines.stream().filter(l -> l.startsWith("Total")).findFirst().orElse("no total"));
        } catch (Exception e) {
            System.out.printf("  no heap histogram for %s: %s%n", phase, e);
        }
    }

    private static String heartbeatCount() {
        return "http_server_requests_seconds_count{";
    }

    private static double action(Map<String, Double> metrics, String kind) {
        return metrics.entrySet().stream().filter(e -> e.getKey().startsWith("reconciler_actions_total{")
                && e.getKey().contains("kind=\"" + kind + "\"")).mapToDouble(Map.Entry::getValue).sum();
    }

    /** The heartbeat answers' 99th percentile over the phase, from the histogram's cumulative buckets. */
    private static double p99Ms(Map<String, Double> first, Map<String, Double> last) {
        TreeMap<Double, Double> buckets = new TreeMap<>();
        last.forEach((k, v) -> {
            if (k.startsWith("http_server_requests_seconds_bucket{") && k.contains("/agent/v1/heartbeat")) {
                int le = k.indexOf("le=\"");
                String bound = k.substring(le + 4, k.indexOf('"', le + 4));
                double b = bound.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(bound);
                buckets.merge(b, v - first.getOrDefault(k, 0.0), Double::sum);
            }
        });
        double total = buckets.isEmpty() ? 0 : buckets.lastEntry().getValue();
        for (var e : buckets.entrySet()) {
            if (total > 0 && e.getValue() >= 0.99 * total) {
                return e.getKey() * 1000;
            }
        }
        return Double.NaN;
    }

    /** The heartbeat lines of a service's Prometheus page (and the few others a phase reads), by series. */
    private static Map<String, Double> metrics(URI service) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(service.resolve("/actuator/prometheus")).timeout(METRICS_TIMEOUT).build(),
                HttpResponse.BodyHandlers.ofString());
        Map<String, Double> series = new TreeMap<>();
        r.body().lines().filter(l -> !l.startsWith("#")).forEach(l -> {
            boolean wanted = (l.startsWith("http_server_requests_seconds") && l.contains("/agent/v1/heartbeat"))
                    || l.startsWith("jvm_memory_used_bytes") || l.startsWith("reconciler_actions_total");
            int space = l.lastIndexOf(' ');
            if (wanted && space > 0) {
                series.put(l.substring(0, space), Double.parseDouble(l.substring(space + 1)));
            }
        });
        return series;
    }

    private static double sum(Map<String, Double> metrics, String prefix) {
        return metrics.entrySet().stream().filter(e -> e.getKey().startsWith(prefix)).mapToDouble(Map.Entry::getValue).sum();
    }

    private static long count(BenchPostgres pg, String sql) {
        try (Connection c = pg.connect(BurnDown.DATABASE); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void report(int machines, double joined, List<Phase> phases, int jobs, double placing, long attempts) {
        System.out.println();
        System.out.printf("W4 fleet scale: %d machines (joined in %.0f s)%n", machines, joined);
        System.out.println("| phase | s | heartbeats/s | scheduler CPU ms/heartbeat | scheduler heap max (MiB) |"
                + " heartbeat p99 (ms) | falsely SUSPECT | falsely LOST | auto-drained |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        for (Phase p : phases) {
            System.out.printf("| %s | %.0f | %.0f | %.2f | %.0f | %.0f | %d | %d | %d |%n", p.name(), p.seconds(),
                    p.heartbeatsPerSecond(), p.cpuMsPerHeartbeat(), p.heapMaxMib(), p.heartbeatP99Ms(), p.suspect(),
                    p.lost(), p.drained());
        }
        System.out.printf("W1 load: %d jobs, %d attempts, %.1f s from the first preload to the last success: %.0f"
                + " placements/s%n", jobs, attempts, placing, attempts / placing);
    }
}
