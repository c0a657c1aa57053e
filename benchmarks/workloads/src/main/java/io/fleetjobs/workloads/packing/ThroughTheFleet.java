package io.fleetjobs.workloads.packing;

import io.fleetjobs.workloads.BenchPlatform;
import io.fleetjobs.workloads.BenchPostgres;
import io.fleetjobs.workloads.packing.Cluster.Machine;
import io.fleetjobs.workloads.packing.Cluster.Mix;
import io.fleetjobs.workloads.packing.Cluster.Task;
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
import java.util.Locale;
import java.util.Random;

/**
 * The placement-quality benchmark through the real platform: the same seeded cluster played by the fleet simulator,
 * the same tasks submitted through the gateway one at a time, each awaited until the scheduler placed it or said why
 * it waits (so arrival order holds, as in the pure run), each a job whose simulated attempt never ends. When the GPU
 * demand that arrived reaches the cluster's GPUs, the GPUs left unallocated are read from the machines' own counters
 * in the database, and printed beside the pure engine's and the baselines' on the same cluster and tasks. A fresh
 * platform and database for every mix and seed, so that what the scheduler learned of one stream's demand does not
 * carry into the next.
 *
 * <pre>benchmarks/run packing-fleet [seeds] [machines] [first seed] [mixes: indexes into Packing.MIXES, 1-based, comma-separated]</pre>
 */
public final class ThroughTheFleet {
    /** Longer than any run: the simulated attempts hold their room to the end. */
    private static final long FOREVER_MS = Duration.ofDays(1).toMillis();
    private static final Duration DECIDED_WITHIN = Duration.ofSeconds(60);
    private static final String REGION = "packing";

    private ThroughTheFleet() {
    }

    /** The simulator's machines file (cores and MiB, as {@code jobs.worker.simulate.machines} reads it). */
    static List<String> machinesCsv(List<Machine> machines) {
        List<String> lines = new ArrayList<>();
        lines.add("id,region,cpu,memoryMb,gpuCount,gpuType,labels");
        for (Machine m : machines) {
            if (m.cpuMillis() % 1000 != 0) {
                throw new IllegalArgumentException("the simulator takes whole cores: " + m);
            }
            lines.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%s,", m.id(), REGION, m.cpuMillis() / 1000,
                    m.memoryMb(), m.gpus(), m.model() == null ? "" : m.model()));
        }
        return lines;
    }

    /** A task as a job of the public API: its models as alternatives ({@code A100|H100}), its attempt never ending. */
    static String jobSpec(Task task) {
        String gpuType = task.models().isEmpty() ? "null" : "\"" + String.join("|", task.models()) + "\"";
        return String.format(Locale.ROOT, """
                {"name":"task-%d","resources":{"cpu":%.3f,"memoryMb":%d,"gpuCount":%d,"gpuType":%s},\
                "placement":{"region":"%s"},"execution":{"command":["true"],"env":{"SIM_DURATION_MS":"%d"}},\
                "retry":{"maxAttempts":1}}""", task.n(), task.cpuMillis() / 1000.0, task.memoryMb(), task.gpus(), gpuType,
                REGION, FOREVER_MS);
    }

    /** One run through the platform. */
    record FleetResult(long unallocated, int unplaced, int arrived, long gpus, double seconds) {
    }

    public static void main(String[] args) throws Exception {
        int seeds = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        int machineCount = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int firstSeed = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        List<Mix> mixes = new ArrayList<>();
        if (args.length > 3) {
            for (String i : args[3].split(",")) {
                mixes.add(Packing.MIXES.get(Integer.parseInt(i.trim()) - 1));
            }
        } else {
            mixes.addAll(Packing.MIXES);
        }
        System.out.printf("%d machines played by the fleet simulator, seeds %d to %d; GPUs unallocated when the GPU "
                + "demand that arrived equals the cluster's GPUs%n%n", machineCount, firstSeed, firstSeed + seeds - 1);
        System.out.println("| mix | seed | GPUs | floor | platform through the fleet | platform, pure engine | first-fit "
                + "| best-fit | worst-fit | random | through the fleet against every baseline |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        int run = 0;
        try (BenchPostgres pg = BenchPostgres.start()) {
            for (Mix mix : mixes) {
                for (int seed = firstSeed; seed < firstSeed + seeds; seed++) {
                    Random random = new Random(seed * 7919L); // the pure benchmark's cluster and tasks, draw for draw
                    List<Machine> machines = Cluster.machines(machineCount, 0.2, random);
                    long gpus = machines.stream().mapToLong(Machine::gpus).sum();
                    List<Task> tasks = Cluster.tasks(mix, gpus, random);
                    List<Packing.Result> pure = new ArrayList<>();
                    for (var policy : Packing.policies()) {
                        if (!policy.apply(seed).name().equals("bin-pack only")) {
                            pure.add(Packing.run(policy.apply(seed), machines, tasks));
                        }
                    }
                    FleetResult fleet = throughTheFleet(pg, "packing_" + run++, machines, tasks);
                    long floor = Math.round(Packing.floor(machines, tasks) * gpus);
                    StringBuilder row = new StringBuilder(String.format("| %s | %d | %d | %d | **%d (%d)** |",
                            mix.name(), seed, gpus, floor, fleet.unallocated(), fleet.unplaced()));
                    List<String> notBeaten = new ArrayList<>();
                    for (int i = 0; i < pure.size(); i++) {
                        Packing.Result r = pure.get(i);
                        row.append(String.format(" %d (%d) |", r.unallocated(), r.unplaced()));
                        if (i > 0 && fleet.unallocated() >= r.unallocated() && fleet.unallocated() > 0) {
                            notBeaten.add(r.policy() + " " + r.unallocated());
                        }
                    }
                    System.out.println(row + (notBeaten.isEmpty() ? " fewer" : " not fewer than " + String.join(", ", notBeaten))
                            + String.format(" (%d tasks in %.0f s) |", fleet.arrived(), fleet.seconds()));
                }
            }
        }
        System.out.println("\ncells: GPUs unallocated (tasks that found no room, of every kind); floor in GPUs. "
                + "\"fewer\": through the fleet it left strictly fewer than first-fit, best-fit, worst-fit and random (or none).");
    }

    /** Starts a platform with the cluster as simulated machines and submits the tasks in order until the demand reaches its GPUs. */
    static FleetResult throughTheFleet(BenchPostgres pg, String database, List<Machine> machines, List<Task> tasks)
            throws Exception {
        Path csv = Files.createTempFile("packing-machines-", ".csv");
        csv.toFile().deleteOnExit();
        Files.write(csv, machinesCsv(machines));
        long gpus = machines.stream().mapToLong(Machine::gpus).sum();
        // a plan's "no room" written at once: the tasks are awaited one by one until placed or left unplaced
        try (BenchPlatform platform = BenchPlatform.start(pg, database, 1,
                List.of("--jobs.worker.simulate.machines=" + csv.toAbsolutePath()),
                List.of("--jobs.scheduler.no-room-reason-after=0"));
                Connection db = pg.connect(database); Statement sql = db.createStatement()) {
            awaitJoined(sql, machines.size());
            Instant start = Instant.now();
            long demanded = 0;
            int arrived = 0;
            int unplaced = 0;
            for (Task task : tasks) {
                if (demanded >= gpus) {
                    break;
                }
                arrived++;
                demanded += task.gpus();
                HttpResponse<String> submitted = platform.post("/api/v1/jobs", jobSpec(task));
                BenchPlatform.check(submitted, 201);
                String id = BenchPlatform.JSON.readTree(submitted.body()).get("id").asString();
                if (!placed(db, id)) {
                    unplaced++;
                }
            }
            long allocated = longValue(sql, "select coalesce(sum(alloc_gpu_count), 0) from machines");
            return new FleetResult(gpus - allocated, unplaced, arrived, gpus,
                    Duration.between(start, Instant.now()).toMillis() / 1e3);
        }
    }

    /**
     * Whether the job was placed; false once a plan of the scheduler left it unplaced ({@code unplaced_kind}, written
     * with the reason it waits; a job's reason alone may be the one it was queued with).
     */
    private static boolean placed(Connection db, String id) throws Exception {
        Instant deadline = Instant.now().plus(DECIDED_WITHIN);
        try (var read = db.prepareStatement("select state, unplaced_kind from jobs where id = ?::uuid")) {
            read.setString(1, id);
            while (Instant.now().isBefore(deadline)) {
                try (ResultSet r = read.executeQuery()) {
                    if (r.next()) {
                        String state = r.getString(1);
                        if (!state.equals("QUEUED") && !state.equals("SUBMITTED")) {
                            return true;
                        }
                        if (r.getString(2) != null) {
                            return false;
                        }
                    }
                }
                Thread.sleep(10);
            }
        }
        throw new IllegalStateException("job " + id + " neither placed nor left unplaced by a plan within " + DECIDED_WITHIN);
    }

    private static void awaitJoined(Statement sql, int machines) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
        while (longValue(sql, "select count(*) from machines where status = 'READY'") < machines) {
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the simulated machines did not all join within 3 minutes");
            }
            Thread.sleep(200);
        }
    }

    private static long longValue(Statement sql, String query) throws Exception {
        try (ResultSet r = sql.executeQuery(query)) {
            r.next();
            return r.getLong(1);
        }
    }
}
