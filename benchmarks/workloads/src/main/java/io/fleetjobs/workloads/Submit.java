package io.fleetjobs.workloads;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Submits through the gateway: closed-loop clients (virtual threads, the JDK's HttpClient) each posting
 * a no-op job spec ({@code true}) as soon as its previous one is answered, for a warm-up and then a
 * measured period, against a platform started by this program on a fresh database of {@link BenchPostgres}
 * (no agents by default: the jobs queue and nothing runs them, so the machine's cores go to the submit
 * path). Then pgbench's simple-update at the same number of clients on the same server, and the ratio.
 * Run with {@code benchmarks/run submit [clients] [measured s] [warm-up s] [agents]} (default 50, 30, 90, 0).
 * The warm-up is long because the services are long-lived processes measured here in their first
 * minutes: with 10 s, the C2 compilers of four freshly started JVMs took most of the two cores during
 * the measured period (JFR: 15 s of compilation in 20 s in job-service alone), and the figure was a
 * quarter of the warm one.
 */
public final class Submit {
    static final String SPEC = """
            {"name":"noop","resources":{"cpu":0.01,"memoryMb":1},"execution":{"command":["true"]},\
            "retry":{"maxAttempts":1}}""";

    private Submit() {
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        int measured = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 90;
        int agents = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        try (BenchPostgres pg = BenchPostgres.start()) {
            System.out.printf("submit: %d closed-loop clients, %d s warm-up, %d s measured, %d agents%n", clients,
                    warmup, measured, agents);
            System.out.println("server: " + pg.describe());
            Result result;
            try (BenchPlatform platform = BenchPlatform.start(pg, "bench_submit", agents, List.of())) {
                System.out.println(platform.describe());
                result = closedLoop(platform, clients, warmup, measured, () -> {
                    if (BenchPostgres.profiling()) {
                        try {
                            pg.resetStatements("bench_submit");
                        } catch (java.sql.SQLException e) {
                            System.out.println("(statement statistics off: " + e.getMessage() + ")");
                        }
                    }
                });
                if (BenchPostgres.profiling()) {
                    pg.printStatements("bench_submit", Math.max(1, Math.round(result.perSecond() * measured)));
                }
            }
            result.cpuTo().print(result.cpuFrom(), Math.round(result.perSecond() * measured), "submit",
                    java.time.Duration.ofSeconds(measured));
            if (clients == 0) {
                return; // the platform's CPU at rest, no pgbench to compare with
            }
            OptionalPgbench pgbench = simpleUpdate(pg, clients, measured);
            System.out.printf("%-44s %8s %10s %9s %9s %9s %8s%n", "what", "clients", "per s", "p50 ms", "p99 ms",
                    "max ms", "errors");
            System.out.printf("%-44s %8d %10.0f %9.1f %9.1f %9.1f %8d%n", "POST /api/v1/jobs through the gateway",
                    clients, result.perSecond(), result.latencies().percentileMillis(50),
                    result.latencies().percentileMillis(99), result.latencies().maxMillis(), result.errors());
            if (pgbench.tps().isPresent()) {
                double tps = pgbench.tps().get();
                System.out.printf("%-44s %8d %10.0f %9s %9s %9s %8s%n", "pgbench simple-update (same server)", clients,
                        tps, "-", "-", "-", "-");
                System.out.printf("submits/s : simple-update tps = %.2f%n", result.perSecond() / tps);
            } else {
                System.out.println(pgbench.why());
            }
            result.errorSamples().forEach((status, body) -> System.out.println("error " + status + ": " + body));
        }
    }

    record Result(double perSecond, Latencies latencies, long errors, Map<String, String> errorSamples, CpuSplit cpuFrom,
            CpuSplit cpuTo) {
    }

    /** @param atMeasureStart run when the measured period begins (a profile's start) */
    static Result closedLoop(BenchPlatform platform, int clients, int warmupSeconds, int measuredSeconds,
            Runnable atMeasureStart) throws InterruptedException {
        long start = System.nanoTime();
        long measureFrom = start + warmupSeconds * 1_000_000_000L;
        long end = measureFrom + measuredSeconds * 1_000_000_000L;
        Latencies latencies = new Latencies();
        AtomicLong ok = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        Map<String, String> samples = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            threads.add(Thread.ofVirtual().name("submit-", i).start(() -> {
                while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    String failure = null;
                    try {
                        HttpResponse<String> r = platform.post("/api/v1/jobs", SPEC);
                        if (r.statusCode() != 201) {
                            failure = Integer.toString(r.statusCode());
                            samples.putIfAbsent(failure, abbreviate(r.body()));
                        }
                    } catch (Exception e) {
                        failure = e.getClass().getSimpleName();
                        samples.putIfAbsent(failure, abbreviate(String.valueOf(e.getMessage())));
                        if (e instanceof InterruptedException) {
                            return;
                        }
                    }
                    long t1 = System.nanoTime();
                    if (t0 >= measureFrom && t1 <= end) {
                        if (failure == null) {
                            ok.incrementAndGet();
                            latencies.recordNanos(t1 - t0);
                        } else {
                            errors.incrementAndGet();
                        }
                    }
                }
            }));
        }
        // the CPU of the measured period, by process
        Thread.sleep(Math.max(0, (measureFrom - System.nanoTime()) / 1_000_000));
        atMeasureStart.run();
        CpuSplit cpuFrom = CpuSplit.of(platform);
        Thread.sleep(Math.max(0, (end - System.nanoTime()) / 1_000_000));
        CpuSplit cpuTo = CpuSplit.of(platform);
        for (Thread t : threads) {
            t.join();
        }
        return new Result(ok.get() / (double) measuredSeconds, latencies, errors.get(), samples, cpuFrom, cpuTo);
    }

    record OptionalPgbench(Optional<Double> tps, String why) {
    }

    private static OptionalPgbench simpleUpdate(BenchPostgres pg, int clients, int seconds) throws Exception {
        Optional<Pgbench> found = Pgbench.find(pg);
        if (found.isEmpty()) {
            return new OptionalPgbench(Optional.empty(), Pgbench.missing());
        }
        String db = "bench_submit_pgbench";
        pg.createDatabase(db);
        found.get().initialize(db, Limit.SCALE);
        double tps = found.get().tps(db, List.of("-b", "simple-update"), clients,
                Runtime.getRuntime().availableProcessors(), seconds);
        return new OptionalPgbench(Optional.of(tps), "");
    }

    static String abbreviate(String s) {
        String one = s.replaceAll("\\s+", " ");
        return one.length() <= 200 ? one : one.substring(0, 200) + "…";
    }
}
