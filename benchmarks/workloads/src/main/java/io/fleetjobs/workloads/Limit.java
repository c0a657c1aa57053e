package io.fleetjobs.workloads;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;

/**
 * The limit of the database under a job queue, measured with pgbench on {@link BenchPostgres}: the
 * one-row update (pgbench's built-in {@code simple-update}) and the job lifecycle (insert, claim with
 * {@code SKIP LOCKED}, complete), one job per transaction ({@code benchmarks/pgbench-lifecycle.sql}) and
 * 100 jobs per statement ({@code benchmarks/pgbench-lifecycle-batched.sql}), each at 1, 4 and 50 clients.
 * Prints a table: script, clients, tps, jobs/s. Run with {@code benchmarks/run limit [seconds per run]}
 * (default 20; nine runs).
 */
public final class Limit {
    static final int[] CLIENTS = {1, 4, 50};
    static final int SCALE = 10;

    private Limit() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
        try (BenchPostgres pg = BenchPostgres.start()) {
            System.out.println("limit: pgbench, " + seconds + " s per run, -j " + threads);
            System.out.println("server: " + pg.describe());
            Optional<Pgbench> found = Pgbench.find(pg);
            if (found.isEmpty()) {
                System.out.println(Pgbench.missing());
                return;
            }
            Pgbench pgbench = found.get();
            String db = "bench_limit";
            pg.createDatabase(db);
            pgbench.initialize(db, SCALE);
            Path scripts = Pgbench.scripts();
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                s.execute(Files.readString(scripts.resolve("pgbench-setup.sql")));
            }
            System.out.printf("%-46s %8s %10s %10s%n", "script", "clients", "tps", "jobs/s");
            for (int clients : CLIENTS) {
                double tps = pgbench.tps(db, List.of("-b", "simple-update"), clients, threads, seconds);
                row("simple-update (1-row update, scale " + SCALE + ")", clients, tps, 0);
            }
            lifecycle(pg, pgbench, db, scripts.resolve("pgbench-lifecycle.sql"), 1, threads, seconds);
            lifecycle(pg, pgbench, db, scripts.resolve("pgbench-lifecycle-batched.sql"), 100, threads, seconds);
        }
    }

    private static void lifecycle(BenchPostgres pg, Pgbench pgbench, String db, Path script, int jobsPerTxn,
            int threads, int seconds) throws Exception {
        for (int clients : CLIENTS) {
            try (Connection c = pg.connect(db); Statement s = c.createStatement()) {
                s.execute("truncate bench_jobs restart identity");
                s.execute("vacuum analyze bench_jobs");
            }
            double tps = pgbench.tps(db, List.of("-f", script.toString()), clients, threads, seconds);
            row(script.getFileName() + " (" + jobsPerTxn + " job" + (jobsPerTxn == 1 ? "" : "s") + "/txn)",
                    clients, tps, jobsPerTxn);
        }
    }

    private static void row(String script, int clients, double tps, int jobsPerTxn) {
        System.out.printf("%-46s %8d %10.0f %10s%n", script, clients, tps,
                jobsPerTxn == 0 ? "-" : String.format("%.0f", tps * jobsPerTxn));
    }
}
