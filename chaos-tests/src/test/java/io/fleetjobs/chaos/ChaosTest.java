package io.fleetjobs.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.local.LocalPlatform;
import io.fleetjobs.model.JobState;
import io.fleetjobs.testsupport.Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The fault-injection suite. Every service, the Kafka broker and several agents run as processes of
 * their own; a workload of jobs (short and long, succeeding and failing, retried, canceled) is
 * submitted while, at random moments, services and agents are killed with SIGKILL (most restart,
 * one machine dies for good), the broker restarts, old messages are replayed on both topics, and
 * the services' database connections are cut. Then, from the database and from a witness file each
 * job process appends to, it checks the invariants and prints what it did and found.
 *
 * <p>Size: {@code chaos.jobs}, {@code chaos.faultSeconds}, {@code chaos.agents} (system properties;
 * a short run in every build, {@code ./mvnw -Pchaos verify} for the long one). Seed: {@code chaos.seed}.
 */
class ChaosTest {
    private final int jobs = Integer.getInteger("chaos.jobs", 300);
    private final Duration faultWindow = Duration.ofSeconds(Integer.getInteger("chaos.faultSeconds", 75));
    private final int agents = Integer.getInteger("chaos.agents", 3);
    private final long seed = Long.getLong("chaos.seed", System.nanoTime());
    private final Random random = new Random(seed);
    private final List<String> faults = new CopyOnWriteArrayList<>();
    private final Map<String, Instant> machineDeaths = new ConcurrentHashMap<>();
    private final AtomicInteger overCommitSamples = new AtomicInteger();
    private final AtomicInteger samples = new AtomicInteger();
    private final AtomicBoolean faulting = new AtomicBoolean(true);

    /** What a job of the workload does. */
    enum Kind { SHORT, LONG, FAILS, RETRIED, CANCELED }

    record Submitted(String id, Kind kind) {
    }

    @Test
    void theInvariantsHoldUnderFire() throws Exception {
        Path home = Path.of("target", "chaos").toAbsolutePath();
        Files.createDirectories(home);
        Path witness = witnessFile(home);
        System.out.printf("chaos: seed %d, %d jobs, %d agents, faults for %ds%n", seed, jobs, agents, faultWindow.toSeconds());

        try (LocalPlatform platform = LocalPlatform.builder().home(home).repository(Path.of("..").toAbsolutePath().normalize())
                .workers(agents).agentResources("2", 2048).portOffset(1_000 + random.nextInt(4_000))
                .serviceArgs("reconciler-service", "--jobs.reconciler.interval=500ms")
                .agentArgs("--jobs.worker.heartbeat-interval=1s", "--jobs.worker.kill-grace=2s")
                .startTimeout(Duration.ofMinutes(3)).build().start()) {
            JdbcClient db = JdbcClient.create(dataSource(platform));
            Api admin = new Api(platform.url().getPort(), platform.adminToken());
            // 201, or 409 when an earlier try created it but its answer was lost
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> List.of(201, 409).contains(admin.post("/api/v1/admin/tenants", "{\"name\":\"chaos\"}").status()));
            Api user = admin.as(admin.post("/api/v1/admin/tenants/chaos/api-keys", "{}").field("key"));

            ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, Thread.ofVirtual().factory());
            timer.scheduleWithFixedDelay(() -> sample(db), 0, 250, TimeUnit.MILLISECONDS);
            Thread replayer = Thread.ofVirtual().start(new Replayer(platform.kafkaBootstrapServers(), faulting, random.nextLong())::run);
            CompletableFuture<Void> injected = injectFaults(platform, plan(), 0);
            List<Submitted> submitted = submitWorkload(user, witness);
            injected.join();
            faulting.set(false);
            replayer.join();

            // every component back, then wait for the work to settle
            for (String c : platform.components()) {
                if (!c.equals(LocalPlatform.POSTGRES) && !machineDeaths.containsKey(c) && !platform.isRunning(c)) {
                    platform.start(c);
                }
            }
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).until(() -> settled(db));
            timer.shutdownNow();
            report(db, submitted, witness);
        }
    }

    private static PGSimpleDataSource dataSource(LocalPlatform platform) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(platform.databaseUrl());
        ds.setUser(platform.databaseUser());
        ds.setPassword(platform.databasePassword());
        return ds;
    }

    // ------------------------------------------------------------------ the workload

    /** Submits the workload spread over most of the fault window, each job at its planned moment. */
    private List<Submitted> submitWorkload(Api user, Path witness) {
        Map<Integer, Submitted> submitted = new ConcurrentHashMap<>();
        long gapMillis = Math.max(1, faultWindow.toMillis() * 8 / 10 / jobs);
        for (int i = 0; i < jobs; i++) {
            Kind kind = pick();
            String body = spec(kind, i, witness);
            long cancelAfter = 500 + random.nextInt(6_000);
            int n = i;
            later(gapMillis * i, () -> submit(user, n, kind, body, cancelAfter, submitted));
        }
        await().atMost(faultWindow.plusMinutes(3)).pollInterval(Duration.ofMillis(200)).until(() -> submitted.size() == jobs);
        List<Submitted> inOrder = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            inOrder.add(submitted.get(i));
        }
        return inOrder;
    }

    /** One submission; on a failure (job-service down, a cut connection) the same key again shortly: submission is idempotent. */
    private void submit(Api user, int i, Kind kind, String body, long cancelAfter, Map<Integer, Submitted> submitted) {
        try {
            var r = user.post("/api/v1/jobs", body, Map.of("Idempotency-Key", "chaos-" + seed + "-" + i));
            if (r.status() == 201 || r.status() == 200) {
                String id = r.field("id");
                submitted.put(i, new Submitted(id, kind));
                if (kind == Kind.CANCELED) {
                    later(cancelAfter, () -> cancel(user, id, 0));
                }
                return;
            }
        } catch (RuntimeException e) {
            // down for a moment
        }
        later(200, () -> submit(user, i, kind, body, cancelAfter, submitted));
    }

    private void cancel(Api user, String id, int tries) {
        try {
            int status = user.post("/api/v1/jobs/" + id + "/cancel", null).status();
            if (status == 202 || status == 409) {
                return;
            }
        } catch (RuntimeException e) {
            // down for a moment
        }
        if (tries < 100) {
            later(300, () -> cancel(user, id, tries + 1));
        }
    }

    /** Runs {@code task} after {@code millis}, on a virtual thread. */
    private static CompletableFuture<Void> later(long millis, Runnable task) {
        return CompletableFuture.runAsync(task, CompletableFuture.delayedExecutor(Math.max(0, millis), TimeUnit.MILLISECONDS,
                r -> Thread.ofVirtual().start(r)));
    }

    private Kind pick() {
        int r = random.nextInt(100);
        return r < 55 ? Kind.SHORT : r < 67 ? Kind.LONG : r < 77 ? Kind.FAILS : r < 89 ? Kind.RETRIED : Kind.CANCELED;
    }

    /**
     * The file every job appends to, writable by the uids the sandbox runs jobs under, and where a sandboxed job sees
     * it: not under /tmp (a checkout there), which is private to each job.
     */
    private static Path witnessFile(Path home) throws IOException {
        Path dir = home.startsWith("/tmp") ? Files.createDirectories(Path.of("/var/tmp", "fleetjobs-chaos")) : home;
        Path witness = dir.resolve("witness.log");
        Files.deleteIfExists(witness);
        Files.createFile(witness);
        Files.setPosixFilePermissions(witness, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
        return witness;
    }

    /** A job that appends its start and end (with attempt and time) to the witness file. */
    private String spec(Kind kind, int i, Path witness) {
        double seconds = switch (kind) {
            case SHORT -> 0.1 + random.nextInt(20) / 10.0;
            case LONG -> 5 + random.nextInt(10);
            case FAILS, RETRIED -> 0.2 + random.nextInt(10) / 10.0;
            case CANCELED -> 20 + random.nextInt(20);
        };
        String exit = switch (kind) {
            case FAILS -> "exit 3";
            case RETRIED -> "if [ \\\"$JOBS_ATTEMPT\\\" -ge 2 ]; then exit 0; else exit 75; fi";
            default -> "exit 0";
        };
        String w = witness.toString();
        String script = "echo \\\"start $JOBS_JOB_ID $JOBS_ATTEMPT $(date +%s%N)\\\" >> " + w + "; sleep " + seconds
                + "; echo \\\"end $JOBS_JOB_ID $JOBS_ATTEMPT $(date +%s%N)\\\" >> " + w + "; " + exit;
        return """
                {"name": "chaos-%d", "resources": {"cpu": 0.25, "memoryMb": 64},
                 "execution": {"command": ["sh", "-c", "%s"]},
                 "retry": {"maxAttempts": 3, "retryOnExitCodes": [75], "backoffSeconds": 1, "maxBackoffSeconds": 5},
                 "labels": {"kind": "%s"}}""".formatted(i, script, kind);
    }

    // ------------------------------------------------------------------ the faults

    /** One planned fault: when (from the start), which, and for crashes how long the component stays down. */
    record Fault(long atMillis, int kind, long downMillis, int target) {
    }

    /** The whole fault schedule, drawn from the seed up front. */
    private List<Fault> plan() {
        List<Fault> plan = new ArrayList<>();
        long t = 0;
        while (true) {
            t += 2_000 + random.nextInt(4_000);
            if (t >= faultWindow.toMillis()) {
                return plan;
            }
            plan.add(new Fault(t, random.nextInt(8), 500 + random.nextInt(3_000), random.nextInt(1_000)));
        }
    }

    /** Applies the planned faults one after another, each at its moment (or at once, when the one before ran late). */
    private CompletableFuture<Void> injectFaults(LocalPlatform platform, List<Fault> plan, int next) {
        if (next == plan.size()) {
            return CompletableFuture.completedFuture(null);
        }
        if (next == 0) {
            faultsStart = System.nanoTime();
        }
        Fault fault = plan.get(next);
        long wait = fault.atMillis() - (System.nanoTime() - faultsStart) / 1_000_000;
        return later(wait, () -> { })
                .thenCompose(ignored -> apply(platform, fault))
                .exceptionally(e -> {
                    record("fault " + fault.kind() + " failed to apply: " + e.getMessage());
                    return null;
                })
                .thenCompose(ignored -> injectFaults(platform, plan, next + 1));
    }

    private long faultsStart;
    private boolean machineDied;

    private CompletableFuture<Void> apply(LocalPlatform platform, Fault fault) {
        return switch (fault.kind()) {
            case 0 -> crashAndRestart(platform, LocalPlatform.SCHEDULER_SERVICE, fault.downMillis());
            case 1 -> crashAndRestart(platform, LocalPlatform.JOB_SERVICE, fault.downMillis());
            case 2 -> crashAndRestart(platform, LocalPlatform.RECONCILER_SERVICE, fault.downMillis());
            case 3, 4 -> crashAndRestart(platform, agent(platform, fault.target()), fault.downMillis());
            case 5 -> CompletableFuture.runAsync(() -> {
                record("restart kafka");
                platform.restart(LocalPlatform.KAFKA);
            });
            case 6 -> CompletableFuture.runAsync(() -> cutDatabaseConnections(platform));
            default -> CompletableFuture.runAsync(() -> {
                if (!machineDied && agents > 1) {
                    machineDied = true;
                    killMachine(platform, agent(platform, fault.target()));
                } else {
                    cutDatabaseConnections(platform);
                }
            });
        };
    }

    private String agent(LocalPlatform platform, int target) {
        List<String> alive = platform.components().stream()
                .filter(c -> c.startsWith(LocalPlatform.AGENT_PREFIX) && !machineDeaths.containsKey(c)).toList();
        return alive.get(target % alive.size());
    }

    private CompletableFuture<Void> crashAndRestart(LocalPlatform platform, String name, long downMillis) {
        record("kill -9 " + name + ", back after " + downMillis + " ms");
        platform.kill(name);
        return later(downMillis, () -> platform.start(name));
    }

    /** A machine dies for good: its agent and every process of its jobs, at once. */
    private void killMachine(LocalPlatform platform, String agent) {
        record("machine of " + agent + " dies for good");
        ProcessHandle process = platform.process(agent).orElseThrow();
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        platform.kill(agent);
        tree.forEach(ProcessHandle::destroyForcibly);
        machineDeaths.put(agent, Instant.now());
    }

    private void cutDatabaseConnections(LocalPlatform platform) {
        JdbcClient db = JdbcClient.create(dataSource(platform));
        int cut = db.sql("""
                select count(pg_terminate_backend(pid)) from pg_stat_activity
                where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'""")
                .query(Integer.class).single();
        record("cut " + cut + " database connections");
    }

    private void record(String fault) {
        faults.add(Instant.now() + " " + fault);
    }

    /** One sample, taken every 250 ms while everything runs: does any machine hold more than its capacity? */
    private void sample(JdbcClient db) {
        try {
            int bad = db.sql("""
                    select count(*) from machines m left join (
                        select machine_id, sum(cpu_millis) c, sum(memory_mb) r, sum(gpu_count) g
                        from attempts where released_at is null group by machine_id) h on h.machine_id = m.id
                    where m.alloc_cpu_millis > m.cpu_millis or m.alloc_memory_mb > m.memory_mb
                       or m.alloc_gpu_count > m.gpu_count or coalesce(h.c, 0) > m.cpu_millis
                       or coalesce(h.r, 0) > m.memory_mb or coalesce(h.g, 0) > m.gpu_count""")
                    .query(Integer.class).single();
            samples.incrementAndGet();
            if (bad > 0) {
                overCommitSamples.incrementAndGet();
            }
        } catch (RuntimeException e) {
            // the database connection was cut: the next sample will do
        }
    }

    private static boolean settled(JdbcClient db) {
        return db.sql("""
                select count(*) from jobs where state in ('SUBMITTED', 'SCHEDULED', 'RUNNING')
                   or (state = 'QUEUED' and (state_reason is null or state_reason not like '0 of %'))""")
                .query(Long.class).single() == 0;
    }

    // ------------------------------------------------------------------ the verdict

    private void report(JdbcClient db, List<Submitted> submitted, Path witness) throws IOException {
        Map<String, Long> violations = new LinkedHashMap<>();

        // 1. every job terminal, or QUEUED with a reason
        violations.put("jobs neither terminal nor queued with a reason", db.sql("""
                select count(*) from jobs where not (state in ('SUCCEEDED', 'FAILED', 'CANCELED')
                   or (state = 'QUEUED' and state_reason like '0 of %'))""").query(Long.class).single());
        violations.put("submitted jobs missing", (long) submitted.stream()
                .filter(s -> db.sql("select count(*) from jobs where id = cast(:id as uuid)").param("id", s.id())
                        .query(Long.class).single() != 1).count());

        // 2. no two attempts of a job overlapping in time (witness starts and ends; killed attempts end when their report says)
        Map<String, Map<Integer, long[]>> intervals = witnessIntervals(witness);
        db.sql("select job_id, attempt, finished_at from attempts where finished_at is not null").query(rs -> {
            var perJob = intervals.get(rs.getString(1));
            if (perJob != null && perJob.containsKey(rs.getInt(2)) && perJob.get(rs.getInt(2))[1] == Long.MAX_VALUE) {
                Timestamp t = rs.getTimestamp(3);
                perJob.get(rs.getInt(2))[1] = t.toInstant().getEpochSecond() * 1_000_000_000L + t.toInstant().getNano();
            }
        });
        long overlaps = 0;
        for (var perJob : intervals.values()) {
            List<long[]> list = new ArrayList<>(perJob.values());
            list.sort((a, b) -> Long.compare(a[0], b[0]));
            for (int i = 1; i < list.size(); i++) {
                if (list.get(i)[0] < list.get(i - 1)[1]) {
                    overlaps++;
                }
            }
        }
        violations.put("attempts of one job overlapping in time", overlaps);
        // the witness saw the jobs it is to judge: a job that succeeded ran its script, and both its lines with it
        long unseen = db.sql("select id from jobs where state = 'SUCCEEDED'").query(String.class).list().stream()
                .filter(id -> !intervals.containsKey(id)).count();
        violations.put("succeeded jobs the witness never saw", unseen);

        // 3. no machine over-committed, sampled during the run
        violations.put("over-committed samples (of " + samples.get() + ")", (long) overCommitSamples.get());

        // 4. only legal transitions, versions without gaps
        long illegal = 0;
        Map<String, List<String[]>> histories = new HashMap<>();
        db.sql("select job_id, version, from_state, to_state from job_history order by job_id, version").query(rs -> {
            histories.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                    .add(new String[] {rs.getString(2), rs.getString(3), rs.getString(4)});
        });
        for (List<String[]> h : histories.values()) {
            for (int i = 0; i < h.size(); i++) {
                String[] e = h.get(i);
                boolean ok = Long.parseLong(e[0]) == i + 1 && (i == 0 ? e[1] == null
                        : e[1].equals(h.get(i - 1)[2]) && (e[1].equals(e[2]) || JobState.valueOf(e[1]).canMoveTo(JobState.valueOf(e[2]))));
                if (!ok) {
                    illegal++;
                }
            }
        }
        violations.put("illegal transitions or gaps in history", illegal);

        // 5. each event applied once: one admission per job, one inbox row per event
        violations.put("jobs admitted more than once", db.sql("""
                select count(*) from (select job_id from job_history where from_state = 'SUBMITTED' and to_state = 'QUEUED'
                group by job_id having count(*) > 1) x""").query(Long.class).single());

        // 6. no canceled job starting again after it was canceled
        Map<String, Long> canceledAt = new HashMap<>();
        db.sql("select job_id, at from job_history where to_state = 'CANCELED'").query(rs -> {
            Timestamp t = rs.getTimestamp(2);
            canceledAt.put(rs.getString(1), t.toInstant().getEpochSecond() * 1_000_000_000L + t.toInstant().getNano());
        });
        long restarted = 0;
        for (var entry : intervals.entrySet()) {
            Long at = canceledAt.get(entry.getKey());
            if (at != null) {
                restarted += entry.getValue().values().stream().filter(iv -> iv[0] > at + 50_000_000L).count();
            }
        }
        violations.put("canceled jobs started again", restarted);

        // 7. no orphans (the placement's rows carry no foreign keys: they hold by construction)
        violations.put("attempts or history rows without their job or machine", db.sql("""
                select (select count(*) from attempts a where not exists (select 1 from jobs j where j.id = a.job_id)
                           or not exists (select 1 from machines m where m.id = a.machine_id))
                     + (select count(*) from job_history h where not exists (select 1 from jobs j where j.id = h.job_id))""")
                .query(Long.class).single());

        // machine loss -> its jobs running elsewhere
        List<Long> recoveries = new ArrayList<>();
        for (var death : machineDeaths.entrySet()) {
            String machine = "local-" + death.getKey().substring(LocalPlatform.AGENT_PREFIX.length());
            db.sql("""
                    select min(n.started_at) from attempts a join attempts n on n.job_id = a.job_id and n.attempt = a.attempt + 1
                    where a.machine_id = :m and a.failure_reason = 'MACHINE_LOST' and n.started_at is not null
                    group by a.job_id""").param("m", machine).query(rs -> {
                recoveries.add(Duration.between(death.getValue(), rs.getTimestamp(1).toInstant()).toMillis());
            });
        }
        Collections.sort(recoveries);

        Map<String, Long> outcomes = new LinkedHashMap<>();
        db.sql("select state, count(*) from jobs group by state order by state").query(rs -> {
            outcomes.put(rs.getString(1), rs.getLong(2));
        });
        Map<Kind, Long> kinds = new LinkedHashMap<>();
        submitted.forEach(s -> kinds.merge(s.kind(), 1L, Long::sum));
        long attempts = db.sql("select count(*) from attempts").query(Long.class).single();

        StringBuilder out = new StringBuilder();
        out.append("== chaos report (seed ").append(seed).append(") ==\n");
        out.append("workload: ").append(submitted.size()).append(" jobs ").append(kinds).append(", ").append(attempts)
                .append(" attempts, ").append(agents).append(" agents\n");
        out.append("outcomes: ").append(outcomes).append("\n");
        out.append("faults injected (").append(faults.size()).append("):\n");
        faults.forEach(f -> out.append("  ").append(f).append("\n"));
        out.append("invariants (violations, all must be 0):\n");
        violations.forEach((k, v) -> out.append("  ").append(v).append("  ").append(k).append("\n"));
        if (!recoveries.isEmpty()) {
            out.append("machine loss -> its jobs running elsewhere: ").append(recoveries.size()).append(" jobs, p50 ")
                    .append(recoveries.get(recoveries.size() / 2)).append(" ms, p99 ")
                    .append(recoveries.get(Math.min(recoveries.size() - 1, recoveries.size() * 99 / 100))).append(" ms\n");
        }
        System.out.print(out);
        Files.writeString(Path.of("target", "chaos-report.txt"), out);
        assertThat(violations).as(out.toString()).allSatisfy((k, v) -> assertThat(v).as(k).isZero());
    }

    /** job id → attempt → {start ns, end ns (MAX_VALUE when the process wrote no end)}. */
    private static Map<String, Map<Integer, long[]>> witnessIntervals(Path witness) throws IOException {
        Map<String, Map<Integer, long[]>> intervals = new HashMap<>();
        if (!Files.exists(witness)) {
            return intervals;
        }
        for (String line : Files.readAllLines(witness)) {
            String[] p = line.trim().split(" ");
            if (p.length != 4) {
                continue;
            }
            long[] iv = intervals.computeIfAbsent(p[1], k -> new HashMap<>())
                    .computeIfAbsent(Integer.parseInt(p[2]), k -> new long[] {Long.MAX_VALUE, Long.MAX_VALUE});
            if (p[0].equals("start")) {
                iv[0] = Math.min(iv[0], Long.parseLong(p[3]));
            } else if (p[0].equals("end")) {
                iv[1] = Long.parseLong(p[3]);
            }
        }
        return intervals;
    }
}
