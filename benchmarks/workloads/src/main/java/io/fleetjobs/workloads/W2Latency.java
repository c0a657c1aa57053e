package io.fleetjobs.workloads;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import tools.jackson.databind.JsonNode;

/**
 * W2, latency under load: open-loop submits (arrivals on a fixed schedule, each on a virtual thread of its
 * own, whatever the answers to the earlier ones) at rising rates, each for a fixed time, against a platform
 * started by this program on a fresh database of {@link BenchPostgres}. For each rate: submit to RUNNING,
 * from the moment the client was to send (its schedule, so a slow answer does not hide the wait; the same
 * machine's clock as the server's) to the start of the job's first attempt as the server recorded it
 * ({@code startedAt} of {@code GET /api/v1/jobs/{id}/attempts}; a quick job may go from SCHEDULED to SUCCEEDED
 * without a RUNNING row in its events); the backlog when the arrivals stop (jobs SUBMITTED, QUEUED or
 * SCHEDULED); jobs not started after a drain wait. Verdict: the highest rate whose p99 is under one second
 * with no errors, every job started, and a backlog at the end of at most one second of arrivals.
 *
 * <p>Agents: one fleet-simulator agent ({@code --jobs.worker.simulate.machines}) playing
 * {@value #SIMULATED} machines of 16 cores ({@code --simulate=N} for another number), whose attempts end at
 * once with exit code 0; or with {@code --real} two real agents running {@code true}. First a warm-up of {@value #WARMUP_SECONDS} s at the lowest rate, not shown. A rate that fails the verdict ends the run unless {@code --all} is given.
 * Run with {@code benchmarks/run w2 [rates, e.g. 25,50,100,200,400] [seconds per rate] [--simulate=N | --real] [--all]}.
 */
public final class W2Latency {
    static final Duration DRAIN = Duration.ofSeconds(30);
    /** Long enough for the JIT compilers of the freshly started services to settle (see {@link Submit}). */
    static final int WARMUP_SECONDS = 90;
    static final int SIMULATED = 100;
    static final int STAGE_SAMPLE = 200;

    private W2Latency() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> rates = List.of(25, 50, 100, 200, 400);
        int seconds = 30;
        int simulated = SIMULATED;
        boolean all = false;
        List<String> positional = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("--simulate=")) {
                simulated = Integer.parseInt(a.substring("--simulate=".length()));
            } else if (a.equals("--real")) {
                simulated = 0;
            } else if (a.equals("--all")) {
                all = true;
            } else {
                positional.add(a);
            }
        }
        if (!positional.isEmpty()) {
            rates = java.util.Arrays.stream(positional.get(0).split(",")).map(String::trim).map(Integer::parseInt).toList();
        }
        if (positional.size() > 1) {
            seconds = Integer.parseInt(positional.get(1));
        }
        try (BenchPostgres pg = BenchPostgres.start()) {
            List<String> agentArgs = new ArrayList<>();
            int agents = 2;
            String fleet = "2 real agents running `true`";
            if (simulated > 0) {
                Path csv = Files.createTempFile("w2-machines-", ".csv");
                csv.toFile().deleteOnExit();
                Files.writeString(csv, machines(simulated));
                agentArgs.add("--jobs.worker.simulate.machines=" + csv.toAbsolutePath());
                agents = 1;
                fleet = "1 fleet-simulator agent playing " + simulated + " machines";
            }
            System.out.printf("w2: open-loop submits at %s/s, %d s each, %s%n", rates, seconds, fleet);
            System.out.println("server: " + pg.describe());
            try (BenchPlatform platform = BenchPlatform.start(pg, "bench_w2", agents, agentArgs)) {
                System.out.println(platform.describe());
                step(platform, rates.get(0), WARMUP_SECONDS); // a freshly started platform is slow at first: not shown
                System.out.printf("%8s %8s %7s %9s %9s %9s %9s %9s%n", "rate/s", "sent", "errors", "p50 ms", "p99 ms",
                        "max ms", "backlog", "unstarted");
                Integer best = null;
                for (int rate : rates) {
                    Step step = step(platform, rate, seconds);
                    System.out.printf("%8d %8d %7d %9.0f %9.0f %9.0f %9d %9d%n", rate, step.sent(), step.errors(),
                            step.latencies().percentileMillis(50), step.latencies().percentileMillis(99),
                            step.latencies().maxMillis(), step.backlog(), step.unstarted());
                    System.out.println("  " + step.stages());
                    step.errorSamples().forEach((k, v) -> System.out.println("  error " + k + ": " + v));
                    if (step.holds(rate)) {
                        best = rate;
                    } else if (!all) {
                        System.out.println("  (rate not held: higher rates not run; --all runs them)");
                        break;
                    }
                }
                System.out.println("highest rate holding p99 < 1 s without a growing backlog: "
                        + (best == null ? "none of those run" : best + "/s"));
            }
        }
    }

    /** One rate's outcome; {@code unstarted} counts jobs with no started attempt after the drain wait. */
    record Step(long sent, long errors, Latencies latencies, long backlog, long unstarted,
            Map<String, String> errorSamples, String stages) {
        /** p99 under one second, no errors, all started, and at most one second of arrivals left waiting. */
        boolean holds(int rate) {
            return verdict(errors, latencies.count() == 0 ? Double.NaN : latencies.percentileMillis(99), backlog,
                    unstarted, rate);
        }
    }

    static boolean verdict(long errors, double p99Millis, long backlog, long unstarted, int rate) {
        return errors == 0 && unstarted == 0 && p99Millis < 1_000 && backlog <= rate;
    }

    /** The intended send time of arrival {@code i} at {@code rate} per second, in nanoseconds after the start. */
    static long arrivalNanos(long i, int rate) {
        return i * 1_000_000_000L / rate;
    }

    private static Step step(BenchPlatform platform, int rate, int seconds) throws Exception {
        long total = (long) rate * seconds;
        Map<String, Instant> sentAt = new ConcurrentHashMap<>();
        AtomicLong errors = new AtomicLong();
        Map<String, String> samples = new ConcurrentHashMap<>();
        Instant wallStart = Instant.now();
        long start = System.nanoTime();
        try (ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor()) {
            for (long i = 0; i < total; i++) {
                long due = start + arrivalNanos(i, rate);
                long wait;
                while ((wait = due - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                Instant intended = wallStart.plusNanos(due - start);
                senders.submit(() -> {
                    try {
                        HttpResponse<String> r = platform.post("/api/v1/jobs", Submit.SPEC);
                        if (r.statusCode() == 201) {
                            sentAt.put(BenchPlatform.JSON.readTree(r.body()).get("id").asString(), intended);
                        } else {
                            errors.incrementAndGet();
                            samples.putIfAbsent(Integer.toString(r.statusCode()), Submit.abbreviate(r.body()));
                        }
                    } catch (Exception e) {
                        errors.incrementAndGet();
                        samples.putIfAbsent(e.getClass().getSimpleName(), Submit.abbreviate(String.valueOf(e.getMessage())));
                    }
                });
            }
        } // waits for the answers
        long endBacklog = waiting(platform);
        long backlog = endBacklog;
        long deadline = System.nanoTime() + DRAIN.toNanos();
        while (backlog > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            backlog = waiting(platform);
        }
        Latencies latencies = new Latencies();
        AtomicLong unstarted = new AtomicLong();
        Semaphore parallel = new Semaphore(8);
        try (ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor()) {
            sentAt.forEach((id, sent) -> readers.submit(() -> {
                parallel.acquireUninterruptibly();
                try {
                    Instant started = startedAt(platform, id);
                    if (started == null) {
                        unstarted.incrementAndGet();
                    } else {
                        latencies.recordMicros(Duration.between(sent, started).toNanos() / 1_000);
                    }
                } catch (Exception e) {
                    unstarted.incrementAndGet();
                } finally {
                    parallel.release();
                }
            }));
        }
        return new Step(total, errors.get(), latencies, endBacklog, unstarted.get(), samples,
                stages(platform, sentAt));
    }

    /** Jobs not started yet; {@link Long#MAX_VALUE} when the platform is too loaded to answer the count (the rate then does not hold). */
    private static long waiting(BenchPlatform platform) throws InterruptedException {
        try {
            return platform.count("SUBMITTED") + platform.count("QUEUED") + platform.count("SCHEDULED");
        } catch (java.io.IOException | RuntimeException e) {
            System.out.println("  (the backlog could not be counted: " + e + ")");
            return Long.MAX_VALUE;
        }
    }

    /**
     * Where the time goes, from the events of up to {@value #STAGE_SAMPLE} of the step's jobs: p50 and p99 of
     * send to SUBMITTED (the job's first event), SUBMITTED to QUEUED, QUEUED to SCHEDULED, SCHEDULED to the
     * first attempt's start.
     */
    private static String stages(BenchPlatform platform, Map<String, Instant> sentAt) throws Exception {
        Latencies[] stage = {new Latencies(), new Latencies(), new Latencies(), new Latencies()};
        int n = 0;
        for (Map.Entry<String, Instant> job : sentAt.entrySet()) {
            if (n++ == STAGE_SAMPLE) {
                break;
            }
            Map<String, Instant> at = new java.util.HashMap<>();
            for (JsonNode e : platform.getJson("/api/v1/jobs/" + job.getKey() + "/events").get("items")) {
                at.putIfAbsent(e.get("to").asString(), Instant.parse(e.get("at").asString()));
            }
            Instant started = startedAt(platform, job.getKey());
            Instant[] marks = {job.getValue(), at.get("SUBMITTED"), at.get("QUEUED"), at.get("SCHEDULED"), started};
            for (int i = 0; i < stage.length; i++) {
                if (marks[i] != null && marks[i + 1] != null) {
                    stage[i].recordMicros(Duration.between(marks[i], marks[i + 1]).toNanos() / 1_000);
                }
            }
        }
        String[] names = {"send->SUBMITTED", "SUBMITTED->QUEUED", "QUEUED->SCHEDULED", "SCHEDULED->started"};
        StringBuilder line = new StringBuilder("stages, p50/p99 ms over " + Math.min(n, STAGE_SAMPLE) + " jobs:");
        for (int i = 0; i < stage.length; i++) {
            line.append(String.format(" %s %.0f/%.0f", names[i], stage[i].percentileMillis(50),
                    stage[i].percentileMillis(99)));
        }
        return line.toString();
    }

    /** The first attempt's start, else the RUNNING row of the events, else null. */
    private static Instant startedAt(BenchPlatform platform, String id) throws Exception {
        JsonNode attempts = platform.getJson("/api/v1/jobs/" + id + "/attempts").get("items");
        if (attempts.size() > 0) {
            JsonNode started = attempts.get(0).get("startedAt");
            if (started != null && !started.isNull()) {
                return Instant.parse(started.asString());
            }
        }
        for (JsonNode e : platform.getJson("/api/v1/jobs/" + id + "/events").get("items")) {
            if ("RUNNING".equals(e.get("to").asString())) {
                return Instant.parse(e.get("at").asString());
            }
        }
        return null;
    }

    /** The fleet simulator's CSV: {@code n} CPU machines of 16 cores and 64 GiB in region {@code local}. */
    static String machines(int n) {
        StringBuilder csv = new StringBuilder("id,region,cpu,memoryMb,gpuCount,gpuType,labels\n");
        for (int i = 1; i <= n; i++) {
            csv.append("sim-").append(i).append(",local,16,65536,0,,\n");
        }
        return csv.toString();
    }
}
