package io.fleetjobs.workloads;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.migrations.Migrate;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.service.SchedulerCycle;
import io.fleetjobs.scheduler.service.SchedulerProperties;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.PlacementStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Claim, plan and commit against a real PostgreSQL 17 (fsync and synchronous commit on), at a
 * given queue depth, next to pgbench's batched job-lifecycle script on the same server. Prints a
 * table; asserts nothing. After a JIT warm-up, rounds of placements alternate with 10 s of pgbench,
 * each phase starting from a vacuumed and checkpointed server, and the medians are compared: on a
 * shared 2-core machine either figure moves by a third from one minute to the next, so a single
 * pair says little. The deepest queue goes first: it warms the JVM up for the shorter ones. Run with
 * {@code benchmarks/run w3 [queued depths…]} (default 10000), system properties through
 * {@code JOBS_BENCH_JVM_OPTIONS}:
 *
 * <pre>
 * JOBS_BENCH_JVM_OPTIONS='-Xmx2g -Drounds=5 -Dmeasured=250000' benchmarks/run w3 1000000 10000
 * </pre>
 * {@code -Dworkers=N} (default 2, as the scheduler runs) sets how many cycles run at once,
 * {@code -Dbatch=N} (default 1000) the jobs claimed per cycle, {@code -Dwarmup=N} (50,000)
 * placements before measuring, {@code -Dmeasured=N} (150,000) placements measured in
 * {@code -Drounds=N} (3) rounds.
 */
public final class PlacementThroughput {
    private static final int MACHINES = 10_000;
    private static final int MEASURED = Integer.getInteger("measured", 150_000);
    private static final int WARMUP = Integer.getInteger("warmup", 50_000);
    private static final int ROUNDS = Integer.getInteger("rounds", 3);

    public static void main(String[] args) throws Exception {
        List<Integer> depths = new ArrayList<>();
        for (String a : args.length == 0 ? new String[] {"10000"} : args) {
            depths.add(Integer.parseInt(a));
        }
        int batch = Integer.getInteger("batch", 1000);
        int workers = Integer.getInteger("workers", 2);
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on").setServerConfig("shared_buffers", "512MB")
                .setServerConfig("max_wal_size", "4GB").setServerConfig("max_connections", "100")
                .start()) {
            System.out.printf("machine: %d cores, PostgreSQL %s embedded, fsync=on synchronous_commit=on%n",
                    Runtime.getRuntime().availableProcessors(), version(pg));
            try (var c = pg.getPostgresDatabase().getConnection()) {
                c.createStatement().execute(Files.readString(scripts().resolve("pgbench-setup.sql")));
            }
            System.out.printf("%-12s %-8s %-8s %-6s %-12s %-14s %-14s %-12s %-12s %-12s %-8s%n", "queued", "batch", "workers",
                    "round", "placements", "placements/s", "cycle p50 ms", "WAL B/job", "CPU µs/job", "pgbench j/s", "ratio");
            for (int depth : depths) {
                run(pg, depth, batch, workers);
            }
        }
    }

    private static void run(EmbeddedPostgres pg, int depth, int batch, int workers) throws Exception {
        String db = "bench_" + depth;
        try (var c = pg.getPostgresDatabase().getConnection()) {
            c.createStatement().execute("drop database if exists " + db);
            c.createStatement().execute("create database " + db);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.getJdbcUrl("postgres", db));
        config.setMaximumPoolSize(workers + 2);
        try (HikariDataSource ds = new HikariDataSource(config)) {
            Migrate.apply(ds);
            JdbcClient jdbc = JdbcClient.create(ds);
            fill(jdbc, depth);
            InstantSource clock = InstantSource.system();
            JobStore jobs = new JobStore(jdbc, new DataSourceTransactionManager(ds), clock, null);
            SimpleMeterRegistry meters = new SimpleMeterRegistry();
            SchedulerCycle cycle = new SchedulerCycle(jobs, new PlacementStore(jdbc, jobs), new PlacementEngine(),
                    new SchedulerProperties(batch, null, Duration.ofHours(1), null, null, null, null, workers), meters);
            // JIT warm-up: the scheduler is a long-lived process; its first seconds (C2 compiling the
            // JDBC, Jackson and engine paths on the same two cores) say nothing about its steady state
            int warmup = Math.min(WARMUP, depth / 10);
            drain(cycle, workers, warmup, new ArrayList<>());
            int rounds = depth >= 100 * batch ? ROUNDS : 1;
            int target = Math.min(MEASURED, depth - warmup - 2 * batch) / rounds;
            List<Double> ours = new ArrayList<>();
            List<Double> limit = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                settle(pg, jdbc);
                long wal0 = walBytes(jdbc);
                List<Long> cycles = Collections.synchronizedList(new ArrayList<>());
                var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
                long cpu0 = os.getProcessCpuTime();
                long start = System.nanoTime();
                int placed = drain(cycle, workers, target, cycles);
                double seconds = (System.nanoTime() - start) / 1e9;
                double cpuSeconds = (os.getProcessCpuTime() - cpu0) / 1e9;
                long wal = walBytes(jdbc) - wal0;
                Collections.sort(cycles);
                ours.add(placed / seconds);
                // pgbench right after, on the same server, so that both see the same machine
                settle(pg, jdbc);
                double jobsPerSecond = depth >= 100 * batch ? pgbench(pg, 10) : Double.NaN;
                limit.add(jobsPerSecond);
                System.out.printf("%-12d %-8d %-8d %-6d %-12d %-14.0f %-14.1f %-12d %-12.0f %-12.0f %-8.2f%n", depth, batch,
                        workers, round, placed, placed / seconds, cycles.get(cycles.size() / 2) / 1e6,
                        placed == 0 ? 0 : wal / placed, cpuSeconds * 1e6 / Math.max(1, placed), jobsPerSecond,
                        placed / seconds / jobsPerSecond);
            }
            System.gc();
            long heap = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20;
            System.out.printf("  median of %d rounds: %.0f placements/s, pgbench %.0f jobs/s, ratio %.2f; scheduler heap after GC %d MiB%n",
                    rounds, median(ours), median(limit), median(ours) / median(limit), heap);
            System.out.printf("  mean ms per cycle: claim %.1f, snapshot %.1f, plan %.1f, commit %.1f%n",
                    mean(meters, "scheduler.claim"), mean(meters, "scheduler.snapshot"), mean(meters, "scheduler.plan"),
                    mean(meters, "scheduler.commit"));
            System.out.printf("  conflicts re-planned: %.0f%n", meters.counter("scheduler.conflicts").count());
        }
    }

    /**
     * Leaves the server as quiet for the next measured phase as for the last one: the garbage of the
     * phase before is vacuumed and the dirty pages written out now, not by autovacuum and the
     * checkpointer during the next phase (which would charge one workload for the other's writes).
     */
    private static void settle(EmbeddedPostgres pg, JdbcClient jdbc) throws Exception {
        jdbc.sql("vacuum jobs, attempts, job_history, outbox, machines").update();
        try (var c = pg.getPostgresDatabase().getConnection(); var st = c.createStatement()) {
            st.execute("vacuum bench_jobs");
            st.execute("checkpoint");
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /** The scheduler's loop: {@code workers} threads running cycles on the one cycle object at once, until {@code target} placements. */
    private static int drain(SchedulerCycle cycle, int workers, int target, List<Long> cycles) throws InterruptedException {
        AtomicInteger placedSoFar = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            threads.add(Thread.ofPlatform().start(() -> {
                while (placedSoFar.get() < target) {
                    long t0 = System.nanoTime();
                    var r = cycle.runOnce();
                    cycles.add(System.nanoTime() - t0);
                    placedSoFar.addAndGet(r.placed());
                    if (r.claimed() == 0) {
                        break;
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        return placedSoFar.get();
    }

    /**
     * Machines with room for everything measured, and {@code depth} queued jobs (4 tenants, mixed
     * sizes, 10% GPU) with time-ordered ids (UUIDv7, one millisecond apart, as submissions get them),
     * so that the table is laid out in submission order as it is in production.
     */
    private static void fill(JdbcClient jdbc, int depth) {
        jdbc.sql("""
                insert into tenants (id, name, weight, created_at)
                select gen_random_uuid(), 'tenant-' || g, 1, now() from generate_series(1, 4) g""").update();
        jdbc.sql("""
                insert into machines (id, region, labels, gpu_type, cpu_millis, memory_mb, gpu_count, status,
                                      last_heartbeat_at, joined_at)
                select 'm-' || g, case when g % 2 = 0 then 'eu' else 'us' end, '{"pool": "batch"}',
                       case when g % 10 = 0 then 'H100' end, 256000, 1048576, case when g % 10 = 0 then 64 else 0 end,
                       'READY', now() + interval '1 day', now()
                from generate_series(1, :n) g""").param("n", MACHINES).update();
        jdbc.sql("""
                insert into jobs (id, tenant_id, name, queue, priority, spec, state, state_reason, version, not_before,
                                  cpu_millis, memory_mb, gpu_count, gpu_type, region, created_at, updated_at)
                select cast(lpad(to_hex(cast(extract(epoch from now()) * 1000 as bigint) - :n + g), 12, '0')
                            || '7' || substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15) as uuid),
                       t.id, 'job-' || g, 'default', 500,
                       jsonb_build_object('name', 'job-' || g, 'queue', 'default', 'priority', 500,
                           'resources', jsonb_build_object('cpu', 0.5, 'memoryMb', 512,
                               'gpuCount', case when g % 10 = 0 then 1 else 0 end,
                               'gpuType', case when g % 10 = 0 then 'H100' end),
                           'placement', jsonb_build_object('region', case when g % 4 = 0 then 'eu' end,
                               'labels', '{}'::jsonb, 'strategy', 'BINPACK'),
                           'execution', jsonb_build_object('command', jsonb_build_array('true'), 'env', '{}'::jsonb),
                           'retry', jsonb_build_object('maxAttempts', 3, 'retryOnExitCodes', '[]'::jsonb,
                               'backoffSeconds', 5, 'maxBackoffSeconds', 300),
                           'labels', '{}'::jsonb),
                       'QUEUED', 'admitted', 1, now() - interval '1 minute', 500, 512,
                       case when g % 10 = 0 then 1 else 0 end, case when g % 10 = 0 then 'H100' end,
                       case when g % 4 = 0 then 'eu' end, now(), now()
                from generate_series(1, :n) g
                join (select id, row_number() over () - 1 as k from tenants) t on t.k = g % 4""")
                .param("n", depth).update();
        jdbc.sql("vacuum analyze jobs").update();
    }

    private static double mean(SimpleMeterRegistry meters, String timer) {
        return meters.get(timer).timer().mean(java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private static long walBytes(JdbcClient jdbc) {
        return jdbc.sql("select wal_bytes::bigint from pg_stat_wal").query(Long.class).single();
    }

    private static String version(EmbeddedPostgres pg) throws Exception {
        try (var c = pg.getPostgresDatabase().getConnection(); var rs = c.createStatement().executeQuery("show server_version")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Path scripts() {
        return Pgbench.scripts();
    }

    /** pgbench's batched lifecycle script on the same server, same settings, 4 clients: jobs per second (100 per transaction). */
    private static double pgbench(EmbeddedPostgres pg, int seconds) throws Exception {
        Process p = new ProcessBuilder("pgbench", "-h", "localhost", "-p", Integer.toString(pg.getPort()), "-U", "postgres",
                "-n", "-c", "4", "-j", "2", "-T", Integer.toString(seconds),
                "-f", scripts().resolve("pgbench-lifecycle-batched.sql").toString(), "postgres")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        var tps = java.util.regex.Pattern.compile("tps = ([0-9.]+)").matcher(out);
        if (!tps.find()) {
            throw new IllegalStateException("pgbench: " + out);
        }
        return Double.parseDouble(tps.group(1)) * 100;
    }
}
