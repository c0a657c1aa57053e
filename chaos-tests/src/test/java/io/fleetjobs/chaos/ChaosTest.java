package io.fleetjobs.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.local.LocalPlatform;
import io.fleetjobs.model.JobState;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TcpProxy;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.util.FileSystemUtils;

/**
 * The fault-injection suite. Every service, the Kafka broker and several agents run as processes of
 * their own; a workload of jobs (short and long, succeeding and failing, retried, canceled) is
 * submitted through the gateway while, at random moments, every service, the gateway, agents, the broker and
 * PostgreSQL are killed with SIGKILL and started again (one machine dies for good), old messages are replayed on
 * both topics, and the services' database connections are cut. Every kind of fault is applied at least once, and
 * each application is checked and counted. Then, from the database and from what the job processes themselves
 * told the {@link Witness} (a connection each holds for its life), it checks the invariants, the outcome of each
 * job against what its workload class meant, and that no job process is left, and prints and writes the report.
 *
 * <p>Size: {@code chaos.jobs}, {@code chaos.faultSeconds}, {@code chaos.agents} (system properties;
 * a short run in every build, {@code ./mvnw -Pchaos verify} for the long one). Seed: {@code chaos.seed}.
 */
class ChaosTest {
    private final int jobs = Integer.getInteger("chaos.jobs", 300);
    private final Duration faultWindow = Duration.ofSeconds(Integer.getInteger("chaos.faultSeconds", 75));
    private final int agents = Integer.getInteger("chaos.agents", 3);
    /** Replicas of job-service, scheduler-service and reconciler-service, side by side on one database. */
    private final int replicas = Integer.getInteger("chaos.replicas", 2);
    private final long seed = Long.getLong("chaos.seed", System.nanoTime());
    private final Random random = new Random(seed);
    private final List<String> faults = new CopyOnWriteArrayList<>();
    private final Map<FaultKind, AtomicInteger> applied = new ConcurrentHashMap<>();
    private final List<String> failedFaults = new CopyOnWriteArrayList<>();
    private final Map<String, Instant> machineDeaths = new ConcurrentHashMap<>();
    private final AtomicInteger overCommitSamples = new AtomicInteger();
    private final AtomicInteger samples = new AtomicInteger();
    private final AtomicBoolean faulting = new AtomicBoolean(true);

    /** What a job of the workload does. */
    enum Kind { SHORT, LONG, FAILS, RETRIED, CANCELED }

    record Submitted(String id, Kind kind) {
    }

    /** How the platform answered a job's cancel: 202 (asked) or 409 (it had ended), when, after how many tries. */
    record CancelAnswer(int status, long answeredNanos, long firstTryNanos, int tries, List<Integer> before) {
        String story(long jobEndNanos) {
            return "cancel " + status + " after " + tries + " tries (before it " + before + ", -1: no answer), the first "
                    + (answeredNanos - firstTryNanos) / 1_000_000 + " ms before, the job's last process ended "
                    + (jobEndNanos - answeredNanos) / 1_000_000 + " ms after it";
        }
    }

    /** How long a job process may live without saying which job it is: its script says so first thing. */
    private static final Duration UNNAMED_GRACE = Duration.ofSeconds(1);

    /** A cancel accepted this long before the job's processes ended and yet not ending it canceled is a violation. */
    private static final Duration CANCEL_REACH = Duration.ofSeconds(10);
    private final Map<String, CancelAnswer> cancels = new ConcurrentHashMap<>();

    @Test
    void theInvariantsHoldUnderFire() throws Exception {
        Path home = Path.of("target", "chaos").toAbsolutePath();
        // a fresh database each run: local mode keeps its data under home, and an earlier run's jobs are not this one's
        FileSystemUtils.deleteRecursively(home);
        Files.createDirectories(home);
        System.out.printf("chaos: seed %d, %d jobs, %d agents, %d replicas of each service, faults for %ds%n", seed, jobs,
                agents, replicas, faultWindow.toSeconds());

        int postgresPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            postgresPort = probe.getLocalPort();
        }
        try (TcpProxy databaseLink = new TcpProxy(postgresPort);
                LocalPlatform platform = LocalPlatform.builder().home(home).repository(Path.of("..").toAbsolutePath().normalize())
                .workers(agents).agentResources("2", 2048).portOffset(1_000 + random.nextInt(4_000))
                .replicas(LocalPlatform.JOB_SERVICE, replicas).replicas(LocalPlatform.SCHEDULER_SERVICE, replicas)
                .replicas(LocalPlatform.RECONCILER_SERVICE, replicas)
                // the gateway reaches each service's replicas through a balancer, as it would through a Kubernetes Service
                .serviceUpstream((service, ports) -> balancers.computeIfAbsent(service, s -> new TcpProxy(ports)).port())
                // every agent reaches the schedulers, and every service PostgreSQL, through a relay a fault can silence; an
                // agent's relay balances over the scheduler's replicas (its own first), as a Kubernetes Service does, so that
                // a replica killed is not its agents' machines lost
                .agentSchedulerPort((agent, schedulers) -> agentLinks.computeIfAbsent(LocalPlatform.AGENT_PREFIX + agent,
                        a -> new TcpProxy(schedulers)).port())
                .postgresPort(postgresPort).serviceDatabasePort(databaseLink.port())
                .serviceArgs("reconciler-service", "--jobs.reconciler.interval=500ms")
                .agentArgs("--jobs.worker.heartbeat-interval=1s", "--jobs.worker.kill-grace=2s")
                .startTimeout(Duration.ofMinutes(3)).build().start(); Witness witness = new Witness()) {
            this.databaseLink = databaseLink;
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
                if (!machineDeaths.containsKey(c) && !platform.isRunning(c)) {
                    platform.start(c);
                }
            }
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofSeconds(1)).ignoreExceptions().until(() -> settled(db));
            timer.shutdownNow();
            // every job is over: its processes end within the agents' kill grace, or are left over
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> witness.open() == 0);
            } catch (ConditionTimeoutException e) {
                // counted as leftovers in the report
            }
            report(db, submitted, witness);
        } finally {
            agentLinks.values().forEach(TcpProxy::close);
            balancers.values().forEach(TcpProxy::close);
        }
    }

    /** The relays between each agent (by component name) and the scheduler, and between the services and PostgreSQL. */
    private final Map<String, TcpProxy> agentLinks = new ConcurrentHashMap<>();
    /** The gateway's way to each service's replicas, by service: connections in turn to those that accept. */
    private final Map<String, TcpProxy> balancers = new ConcurrentHashMap<>();
    private TcpProxy databaseLink;

    private static PGSimpleDataSource dataSource(LocalPlatform platform) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(platform.databaseUrl());
        ds.setUser(platform.databaseUser());
        ds.setPassword(platform.databasePassword());
        return ds;
    }

    // ------------------------------------------------------------------ the workload

    /** Submits the workload spread over most of the fault window, each job at its planned moment. */
    private List<Submitted> submitWorkload(Api user, Witness witness) {
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
                    later(cancelAfter, () -> cancel(user, id, System.nanoTime(), List.of()));
                }
                return;
            }
        } catch (RuntimeException e) {
            // down for a moment
        }
        later(200, () -> submit(user, i, kind, body, cancelAfter, submitted));
    }

    /** A cancel, asked again until the platform answers it: 202 (asked) or 409 (the job had ended first). */
    private void cancel(Api user, String id, long firstTryNanos, List<Integer> before) {
        int status = -1;
        try {
            status = user.post("/api/v1/jobs/" + id + "/cancel", null).status();
            if (status == 202 || status == 409) {
                cancels.put(id, new CancelAnswer(status, System.nanoTime(), firstTryNanos, before.size() + 1, before));
                return;
            }
        } catch (RuntimeException e) {
            // down for a moment
        }
        List<Integer> seen = new ArrayList<>(before);
        seen.add(status);
        later(300, () -> cancel(user, id, firstTryNanos, seen));
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

    /** A job that holds a connection to the witness for its life, sleeps, and exits as its class says. */
    private String spec(Kind kind, int i, Witness witness) {
        double seconds = switch (kind) {
            case SHORT -> 0.1 + random.nextInt(20) / 10.0;
            case LONG -> 5 + random.nextInt(10);
            case FAILS, RETRIED -> 0.2 + random.nextInt(10) / 10.0;
            case CANCELED -> 20 + random.nextInt(20);
        };
        String exit = switch (kind) {
            case FAILS -> "exit 3";
            case RETRIED -> "if [ \"$JOBS_ATTEMPT\" -ge 2 ]; then exit 0; else exit 75; fi";
            default -> "exit 0";
        };
        String script = witness.preamble() + "sleep " + seconds + "; " + exit;
        return """
                {"name": "chaos-%d", "resources": {"cpu": 0.25, "memoryMb": 64},
                 "execution": {"command": ["bash", "-c", "%s"]},
                 "retry": {"maxAttempts": 3, "retryOnExitCodes": [75], "backoffSeconds": 1, "maxBackoffSeconds": 5},
                 "labels": {"kind": "%s"}}""".formatted(i, script.replace("\\", "\\\\").replace("\"", "\\\""), kind);
    }

    // ------------------------------------------------------------------ the faults

    /** What a fault does; every kind is applied at least once in a run (the first ones are one of each). */
    enum FaultKind {
        KILL_SCHEDULER, KILL_JOB_SERVICE, KILL_RECONCILER, KILL_GATEWAY, KILL_AGENT, KILL_KAFKA, KILL_POSTGRES,
        CUT_DATABASE_CONNECTIONS, MACHINE_DIES,
        /** An agent's link to the scheduler drops every packet, resets nothing, for up to 25 s (past the lost TTL). */
        SILENT_AGENT_LINK,
        /** The services' link to PostgreSQL does the same for up to 8 s. */
        SILENT_DATABASE_LINK,
        /** 100–600 ms added to every chunk on an agent's link, then on the services' database link, for a while. */
        SLOW_AGENT_LINK, SLOW_DATABASE_LINK
    }

    /** One planned fault: when (from the start), which, and for crashes how long the component stays down. */
    record Fault(long atMillis, FaultKind kind, long downMillis, int target) {
    }

    /** The whole fault schedule, drawn from the seed up front: one of each kind in a random order, then any but a death. */
    private List<Fault> plan() {
        List<FaultKind> first = new ArrayList<>(List.of(FaultKind.values()));
        if (agents < 2) {
            first.remove(FaultKind.MACHINE_DIES);
        }
        Collections.shuffle(first, random);
        List<FaultKind> again = List.of(FaultKind.values()).stream().filter(k -> k != FaultKind.MACHINE_DIES).toList();
        List<Fault> plan = new ArrayList<>();
        long t = 0;
        while (true) {
            t += 2_000 + random.nextInt(4_000);
            if (t >= faultWindow.toMillis() && plan.size() >= first.size()) {
                return plan;
            }
            FaultKind kind = plan.size() < first.size() ? first.get(plan.size()) : again.get(random.nextInt(again.size()));
            plan.add(new Fault(t, kind, 500 + random.nextInt(3_000), random.nextInt(1_000)));
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
                .thenRun(() -> applied.computeIfAbsent(fault.kind(), k -> new AtomicInteger()).incrementAndGet())
                .exceptionally(e -> {
                    failedFaults.add(fault.kind() + ": " + e.getMessage());
                    record("fault " + fault.kind() + " FAILED to apply: " + e.getMessage());
                    return null;
                })
                .thenCompose(ignored -> injectFaults(platform, plan, next + 1));
    }

    private long faultsStart;

    private CompletableFuture<Void> apply(LocalPlatform platform, Fault fault) {
        return switch (fault.kind()) {
            case KILL_SCHEDULER -> crashAndRestart(platform, replica(LocalPlatform.SCHEDULER_SERVICE), fault.downMillis());
            case KILL_JOB_SERVICE -> crashAndRestart(platform, replica(LocalPlatform.JOB_SERVICE), fault.downMillis());
            case KILL_RECONCILER -> crashAndRestart(platform, replica(LocalPlatform.RECONCILER_SERVICE), fault.downMillis());
            case KILL_GATEWAY -> crashAndRestart(platform, LocalPlatform.API_GATEWAY, fault.downMillis());
            case KILL_AGENT -> crashAndRestart(platform, agent(platform, fault.target()), fault.downMillis());
            case KILL_KAFKA -> crashAndRestart(platform, LocalPlatform.KAFKA, fault.downMillis());
            // restarted on its data directory: what was committed must all be there (the invariants below)
            case KILL_POSTGRES -> crashAndRestart(platform, LocalPlatform.POSTGRES, fault.downMillis());
            case CUT_DATABASE_CONNECTIONS -> CompletableFuture.runAsync(() -> cutDatabaseConnections(platform));
            case MACHINE_DIES -> CompletableFuture.runAsync(() -> killMachine(platform, busiestAgent(platform, fault.target())));
            case SILENT_AGENT_LINK -> {
                String agent = agent(platform, fault.target());
                yield silence(agent + "'s link to the scheduler", agentLinks.get(agent), 5_000 + fault.downMillis() * 6);
            }
            case SILENT_DATABASE_LINK -> silence("the services' link to PostgreSQL", databaseLink, 1_000 + fault.downMillis() * 2);
            case SLOW_AGENT_LINK -> {
                String agent = agent(platform, fault.target());
                yield slow(agent + "'s link to the scheduler", agentLinks.get(agent), fault);
            }
            case SLOW_DATABASE_LINK -> slow("the services' link to PostgreSQL", databaseLink, fault);
        };
    }

    /** The replica of a service a kill hits: each in turn, the second first (so that a short run kills both). */
    private String replica(String service) {
        int kill = serviceKills.computeIfAbsent(service, s -> new AtomicInteger()).incrementAndGet();
        return LocalPlatform.replicaName(service, 1 + kill % replicas);
    }

    private final Map<String, AtomicInteger> serviceKills = new ConcurrentHashMap<>();

    /** The agents whose machine has not died (a killed agent that restarts is one of them). */
    private List<String> aliveAgents(LocalPlatform platform) {
        return platform.components().stream()
                .filter(c -> c.startsWith(LocalPlatform.AGENT_PREFIX) && !machineDeaths.containsKey(c)).toList();
    }

    private String agent(LocalPlatform platform, int target) {
        List<String> alive = aliveAgents(platform);
        return alive.get(target % alive.size());
    }

    /**
     * The machine that dies: the agent with the most job processes under it as the process tree shows them (not the
     * platform's tables), waiting up to 30 s for one to run any, so that the run measures machine loss -> running
     * elsewhere on real work rather than on an idle machine; the planned target when none does (the work is done).
     */
    private String busiestAgent(LocalPlatform platform, int target) {
        List<String> alive = aliveAgents(platform);
        ToLongFunction<String> jobs = agent -> platform.process(agent)
                .map(p -> p.descendants().count()).orElse(0L);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> alive.stream().anyMatch(a -> jobs.applyAsLong(a) > 0));
        } catch (ConditionTimeoutException idle) {
            return agent(platform, target);
        }
        return alive.stream().max(Comparator.comparingLong(jobs)).orElseThrow();
    }

    /** SIGKILL, checked (the process is gone), and a start after the pause, checked too (it serves again). */
    private CompletableFuture<Void> crashAndRestart(LocalPlatform platform, String name, long downMillis) {
        record("kill -9 " + name + ", back after " + downMillis + " ms");
        if (!platform.isRunning(name)) {
            throw new IllegalStateException(name + " was not running");
        }
        platform.kill(name);
        await().atMost(Duration.ofSeconds(10)).until(() -> !platform.isRunning(name));
        return later(downMillis, () -> platform.start(name)).thenRun(() -> {
            if (!platform.isRunning(name)) {
                throw new IllegalStateException(name + " did not come back");
            }
        });
    }

    /** A silent partition of one link for a while, checked (the relay swallows everything), then healed. */
    private CompletableFuture<Void> silence(String link, TcpProxy relay, long millis) {
        if (relay == null) {
            throw new IllegalStateException("no relay for " + link);
        }
        record(link + " silent for " + millis + " ms");
        relay.silence();
        if (!relay.isSilent()) {
            throw new IllegalStateException(link + " did not go silent");
        }
        return later(millis, relay::heal);
    }

    /** Latency on one link for a while, then none. */
    private CompletableFuture<Void> slow(String link, TcpProxy relay, Fault fault) {
        if (relay == null) {
            throw new IllegalStateException("no relay for " + link);
        }
        Duration latency = Duration.ofMillis(100 + fault.target() % 500);
        record(link + " " + latency.toMillis() + " ms slower for " + fault.downMillis() * 3 + " ms");
        relay.delay(latency);
        return later(fault.downMillis() * 3, () -> relay.delay(Duration.ZERO));
    }

    /** A machine dies for good: its agent and every process of its jobs, at once. */
    private void killMachine(LocalPlatform platform, String agent) {
        record("machine of " + agent + " dies for good");
        ProcessHandle process = platform.process(agent).orElseThrow(() -> new IllegalStateException(agent + " is not running"));
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        platform.kill(agent);
        tree.forEach(ProcessHandle::destroyForcibly);
        machineDeaths.put(agent, Instant.now());
    }

    /** Cuts the services' connections; while PostgreSQL itself is down (another fault), once it is back. */
    private void cutDatabaseConnections(LocalPlatform platform) {
        JdbcClient db = JdbcClient.create(dataSource(platform));
        int cut = await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> db.sql("""
                select count(pg_terminate_backend(pid)) from pg_stat_activity
                where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'""")
                .query(Integer.class).single(), n -> true);
        record("cut " + cut + " database connections");
    }

    private void record(String fault) {
        faults.add(Instant.now() + " " + fault);
    }

    /** "n jobs, p50 …, p99 …" of sorted milliseconds since a machine died. */
    private static String percentiles(List<Long> sorted) {
        if (sorted.isEmpty()) {
            return "none";
        }
        return sorted.size() + " jobs, p50 " + sorted.get(sorted.size() / 2) + " ms, p99 "
                + sorted.get(Math.min(sorted.size() - 1, sorted.size() * 99 / 100)) + " ms";
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
                   or (state = 'QUEUED' and unplaced_kind is distinct from 'CAN_NEVER_FIT')""")
                .query(Long.class).single() == 0;
    }

    // ------------------------------------------------------------------ the verdict

    private void report(JdbcClient db, List<Submitted> submitted, Witness witness) throws IOException {
        Map<String, Long> violations = new LinkedHashMap<>();

        // 0. every fault applied as planned, and every kind at least once
        violations.put("faults that failed to apply " + failedFaults, (long) failedFaults.size());
        violations.put("kinds of fault never applied", Arrays.stream(FaultKind.values())
                .filter(k -> k != FaultKind.MACHINE_DIES || agents > 1).filter(k -> !applied.containsKey(k)).count());

        // 1. every job terminal, or QUEUED only where no machine could ever fit it
        violations.put("jobs neither terminal nor queued as never fitting", db.sql("""
                select count(*) from jobs where not (state in ('SUCCEEDED', 'FAILED', 'CANCELED')
                   or (state = 'QUEUED' and unplaced_kind = 'CAN_NEVER_FIT'))""").query(Long.class).single());
        violations.put("submitted jobs missing", (long) submitted.stream()
                .filter(s -> db.sql("select count(*) from jobs where id = cast(:id as uuid)").param("id", s.id())
                        .query(Long.class).single() != 1).count());

        // 2. no two processes of one job alive at once, as the processes themselves told the witness: one record
        //    per process (two processes of one attempt are two), each alive until the kernel closed its connection
        Map<String, List<Witness.Process>> byJob = new HashMap<>();
        for (Witness.Process p : witness.processes()) {
            byJob.computeIfAbsent(String.valueOf(p.jobId), k -> new ArrayList<>()).add(p);
        }
        long overlaps = 0;
        for (List<Witness.Process> list : byJob.values()) {
            for (int i = 0; i < list.size(); i++) {
                for (int j = i + 1; j < list.size(); j++) {
                    overlaps += list.get(i).overlaps(list.get(j)) ? 1 : 0;
                }
            }
        }
        violations.put("pairs of processes of one job alive at once", overlaps);
        violations.put("job processes left running after every job ended", witness.open());
        // a process killed between opening its connection and its first line (a machine's death, a fence's kill
        // right at its start) cannot say which job it ran, nor run any of it; one that stays silent longer could
        List<Witness.Process> unnamed = byJob.getOrDefault("null", List.of());
        violations.put("processes that never said which job they run, alive over " + UNNAMED_GRACE.toMillis() + " ms "
                + unnamed.stream().map(p -> p.startedAt + " for " + (p.endNanos - p.startNanos) / 1_000_000 + " ms").toList(),
                unnamed.stream().filter(p -> p.endNanos - p.startNanos > UNNAMED_GRACE.toNanos()).count());
        // the witness saw the jobs it is to judge: a job that succeeded ran its script
        Set<String> ours = new HashSet<>();
        submitted.forEach(j -> ours.add(j.id()));
        long unseen = db.sql("select id from jobs where state = 'SUCCEEDED'").query(String.class).list().stream()
                .filter(ours::contains).filter(id -> !byJob.containsKey(id)).count();
        violations.put("succeeded jobs the witness never saw", unseen);

        // outcomes as the workload meant them: SHORT and LONG succeed, FAILS fails with its exit code, RETRIED
        // succeeds on a later attempt, CANCELED ends canceled
        List<String> mismatches = new ArrayList<>();
        List<String> lateCancels = new ArrayList<>();
        for (Submitted job : submitted) {
            var row = db.sql("select state, exit_code, attempt, failure_reason from jobs where id = cast(:id as uuid)")
                    .param("id", job.id()).query((rs, n) -> new Object[] {rs.getString(1), rs.getObject(2), rs.getInt(3),
                            rs.getString(4)}).optional().orElse(null);
            if (row == null) {
                continue; // counted as missing
            }
            String state = (String) row[0];
            String ended = job.kind() + " " + job.id() + " ended " + state + " (exit " + row[1] + ", attempt " + row[2]
                    + ", " + row[3] + ")";
            boolean ok = switch (job.kind()) {
                case SHORT, LONG -> state.equals("SUCCEEDED");
                case FAILS -> state.equals("FAILED") && Integer.valueOf(3).equals(row[1]);
                case RETRIED -> state.equals("SUCCEEDED") && (int) row[2] >= 2;
                case CANCELED -> state.equals("CANCELED");
            };
            if (!ok && job.kind() == Kind.CANCELED) {
                // not canceled: right only where the job's processes had ended before the platform said 409, or
                // ended on their own before an accepted cancel could reach them
                CancelAnswer answer = cancels.get(job.id());
                long lastEnd = byJob.getOrDefault(job.id(), List.of()).stream().mapToLong(p -> p.endNanos).max()
                        .orElse(Long.MIN_VALUE);
                if (answer == null) {
                    ended += ": its cancel was never answered";
                } else {
                    ended += ": " + answer.story(lastEnd);
                    ok = answer.status() == 409 ? lastEnd <= answer.answeredNanos()
                            : lastEnd <= answer.answeredNanos() + CANCEL_REACH.toNanos();
                    if (ok) {
                        lateCancels.add(ended);
                    }
                }
            }
            if (!ok) {
                mismatches.add(ended);
            }
        }
        violations.put("jobs whose outcome is not what their class meant " + mismatches, (long) mismatches.size());

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
        for (Witness.Process p : witness.processes()) {
            Long at = canceledAt.get(String.valueOf(p.jobId));
            if (at != null) {
                long started = p.startedAt.getEpochSecond() * 1_000_000_000L + p.startedAt.getNano();
                restarted += started > at + 50_000_000L ? 1 : 0;
            }
        }
        violations.put("canceled jobs started again", restarted);

        // 7. no orphans (the placement's rows carry no foreign keys: they hold by construction)
        violations.put("attempts or history rows without their job or machine", db.sql("""
                select (select count(*) from attempts a where not exists (select 1 from jobs j where j.id = a.job_id)
                           or not exists (select 1 from machines m where m.id = a.machine_id))
                     + (select count(*) from job_history h where not exists (select 1 from jobs j where j.id = h.job_id))""")
                .query(Long.class).single());

        // machine loss -> its jobs running elsewhere, of the attempts lost after the machine died (not earlier losses of
        // the same machine to other faults): when the loss was declared (the lost attempt's end), when a process of a
        // later attempt started as the witness saw it, and when the platform recorded that start (the database's
        // started_at, written when the agent's report of it was applied: late while heartbeats are)
        List<Long> declared = new ArrayList<>();
        List<Long> recoveries = new ArrayList<>();
        List<Long> recorded = new ArrayList<>();
        for (var death : machineDeaths.entrySet()) {
            String machine = "local-" + death.getKey().substring(LocalPlatform.AGENT_PREFIX.length());
            Instant died = death.getValue();
            db.sql("""
                    select a.job_id, a.attempt, a.finished_at,
                           (select min(n.started_at) from attempts n where n.job_id = a.job_id and n.attempt > a.attempt)
                    from attempts a
                    where a.machine_id = :m and a.failure_reason = 'MACHINE_LOST' and a.finished_at >= :death""")
                    .param("m", machine).param("death", Timestamp.from(died)).query(rs -> {
                String job = rs.getString(1);
                int lost = rs.getInt(2);
                declared.add(Duration.between(died, rs.getTimestamp(3).toInstant()).toMillis());
                witness.processes().stream().filter(p -> job.equals(String.valueOf(p.jobId)) && p.attempt > lost)
                        .map(p -> p.startedAt).min(Instant::compareTo)
                        .ifPresent(at -> recoveries.add(Duration.between(died, at).toMillis()));
                if (rs.getTimestamp(4) != null) {
                    recorded.add(Duration.between(died, rs.getTimestamp(4).toInstant()).toMillis());
                }
            });
        }
        Collections.sort(declared);
        Collections.sort(recoveries);
        Collections.sort(recorded);

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
                .append(" attempts, ").append(agents).append(" agents, ").append(replicas)
                .append(" replicas of job-service, scheduler-service and reconciler-service\n");
        out.append("outcomes: ").append(outcomes).append("\n");
        out.append("faults applied by kind: ").append(new TreeMap<>(applied)).append("\n");
        out.append("faults injected (").append(faults.size()).append("):\n");
        faults.forEach(f -> out.append("  ").append(f).append("\n"));
        out.append("invariants (violations, all must be 0):\n");
        violations.forEach((k, v) -> out.append("  ").append(v).append("  ").append(k).append("\n"));
        long slowest = cancels.values().stream().mapToLong(c -> c.answeredNanos() - c.firstTryNanos()).max().orElse(0);
        out.append("cancels answered: ").append(cancels.size()).append(", slowest ").append(slowest / 1_000_000)
                .append(" ms; came after the job had ended (no violation) ").append(lateCancels).append("\n");
        if (!declared.isEmpty()) {
            out.append("machine loss declared (its attempts ended MACHINE_LOST): ").append(percentiles(declared)).append("\n");
        }
        if (!recoveries.isEmpty()) {
            out.append("machine loss -> its jobs running elsewhere (a later attempt's process started, as the witness saw"
                    + " it): ").append(percentiles(recoveries)).append("\n");
            out.append("machine loss -> those starts recorded by the platform (started_at): ").append(percentiles(recorded))
                    .append("\n");
        } else {
            out.append("machine loss -> its jobs running elsewhere: no job of a dead machine ran again (")
                    .append(machineDeaths.isEmpty() ? "no machine died" : "it held none then").append(")\n");
        }
        System.out.print(out);
        Files.writeString(Path.of("target", "chaos-report.txt"), out);
        assertThat(violations).as(out.toString()).allSatisfy((k, v) -> assertThat(v).as(k).isZero());
    }
}
