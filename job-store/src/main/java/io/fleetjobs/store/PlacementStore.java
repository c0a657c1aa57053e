package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.GangRendezvous;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.UnplacedKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The scheduler's reads and writes, batched: claim a batch of placeable queued jobs with
 * {@code FOR UPDATE SKIP LOCKED}, read the machines and tenants, and commit a plan (attempts with what
 * they hold, the GPU devices they hold, machine usage, SCHEDULED transitions with their history rows,
 * which are also their events, and the jobs left queued) with a handful of statements.
 * Claim, plan and commit belong in one transaction: the claimed rows stay locked until the plan is
 * committed, so no other replica can place them.
 */
public final class PlacementStore {
    private final JdbcClient jdbc;
    private final JobStore jobs;
    private final JobWrites writes;
    private final Attempts attemptRows;
    private final MachineAllocations machines;
    private final GpuHolds gpus;
    private final QueuedJobs queued;
    private final GangHoldRows gangHolds;

    public PlacementStore(JdbcClient jdbc, JobStore jobs) {
        this.jdbc = jdbc;
        this.jobs = jobs;
        this.writes = jobs.writes();
        this.attemptRows = new Attempts(jdbc);
        this.machines = new MachineAllocations(jdbc);
        this.gpus = new GpuHolds(jdbc);
        this.queued = new QueuedJobs(jdbc, jobs.clock());
        this.gangHolds = new GangHoldRows(jdbc);
    }

    /** The room due gangs hold, shared by the scheduler's replicas. */
    public GangHoldRows gangHolds() {
        return gangHolds;
    }

    /**
     * Locks up to {@code limit} QUEUED jobs whose time has come, by priority then age; skips rows other replicas hold.
     * Jobs whose "fits nowhere" backoff ended ({@link UnplacedKind#CAN_NEVER_FIT} as claimed) come first, by when it
     * ended, up to half of them: they are not in the claim's order (see {@link QueuedJobs#claim}).
     */
    public List<ClaimedJob> claim(int limit) {
        return queued.claim(limit);
    }

    /**
     * As {@link #claim(int)}, but only jobs after the one of {@code priority}, {@code ahead} (requeued ahead) and
     * {@code id} in the claim's order.
     */
    public List<ClaimedJob> claimAfter(int limit, int priority, boolean ahead, UUID id) {
        return queued.claimAfter(limit, priority, ahead, id);
    }

    /** Locks these jobs again, if they are still QUEUED and no other replica holds them. */
    public List<ClaimedJob> reclaim(List<UUID> ids) {
        return queued.reclaim(ids);
    }

    /** Machines that are not lost (the engine counts the others under the filter that rejects them), as of now (not locked: the commit re-checks under lock). */
    public List<MachineRow> schedulableMachines() {
        return jdbc.sql("select " + MachineStore.COLUMNS + " from machines where status <> 'LOST' order by id collate \"C\"")
                .query(MachineStore.MACHINE).list();
    }

    /** What each tenant holds now (its jobs on machines), with its weight and quota. */
    public List<TenantUsage> tenantUsage() {
        return jdbc.sql("""
                        select t.id, t.weight, t.quota_cpu_millis, t.quota_memory_mb, t.quota_gpu_count,
                               coalesce(u.cpu, 0) as cpu, coalesce(u.mem, 0) as mem, coalesce(u.gpu, 0) as gpu
                        from tenants t left join (""" + TenantStore.HELD + " group by tenant_id) u on u.tenant_id = t.id")
                .query((rs, n) -> new TenantUsage(rs.getObject("id", UUID.class), rs.getInt("weight"),
                        (Long) rs.getObject("quota_cpu_millis"), (Long) rs.getObject("quota_memory_mb"),
                        (Integer) rs.getObject("quota_gpu_count"), new Amounts(rs.getLong("cpu"), rs.getLong("mem"), rs.getInt("gpu"))))
                .list();
    }

    /**
     * Commits a plan. Each new attempt is checked against its machine's free capacity and status
     * under the machine's row lock, machines locked in id order (no deadlock between replicas); one
     * that no longer fits (another replica took the room, the machine left) is not placed and its job
     * stays QUEUED for a re-plan. The database's check constraints refuse over-commit whatever this
     * code does.
     *
     * <p>Optimistic order: the rows of the plan (jobs, attempts, history, events) are written first
     * and the machines locked and checked last, so that two transactions placing on the same machines
     * (two scheduler workers or replicas) overlap their writes and wait for each other only for the
     * short machine update at the end. When a machine turns out to lack room, the writes are rolled
     * back to a savepoint and the plan committed the careful way: machines locked first, only what
     * fits written.
     *
     * <p>Call in a transaction that claimed the jobs.
     *
     * @param attempts new attempts, in plan order, of jobs this transaction claimed
     * @param deferrals jobs left QUEUED: why, and their backoff if they have one
     */
    public CommitResult commit(List<NewAttempt> attempts, List<Deferral> deferrals, Duration leaseTtl) {
        Instant now = jobs.clock().instant();
        CommitResult result;
        if (attempts.isEmpty()) {
            result = new CommitResult(List.of(), List.of());
        } else {
            String[] machineIds = attempts.stream().map(NewAttempt::machineId).distinct().sorted().toArray(String[]::new);
            jdbc.sql("savepoint placement_optimistic").update();
            Placed optimistic = write(attempts, now, leaseTtl);
            List<UUID> conflicts = new ArrayList<>();
            List<NewAttempt> accepted = fitting(attempts, machines.lockFree(machineIds), conflicts);
            if (conflicts.isEmpty()) {
                jdbc.sql("release savepoint placement_optimistic").update();
                take(accepted);
                writes.afterCommit(optimistic.applied().written());
                result = new CommitResult(optimistic.scheduled(), List.of());
            } else {
                jdbc.sql("rollback to savepoint placement_optimistic").update();
                conflicts.clear();
                accepted = fitting(attempts, machines.lockFree(machineIds), conflicts);
                Placed careful = accepted.isEmpty() ? new Placed(List.of(), JobWrites.Applied.NONE) : write(accepted, now, leaseTtl);
                take(accepted);
                writes.afterCommit(careful.applied().written());
                result = new CommitResult(careful.scheduled(), conflicts);
            }
        }
        gpus.hold(result.scheduled(), attempts);
        queued.defer(deferrals);
        return result;
    }

    /**
     * The attempts that fit, in plan order, taking room and one of the machine's attempts at once from {@code free};
     * the jobs of the others go to
     * {@code conflicts}. A gang's replicas fit all together or not at all.
     */
    private static List<NewAttempt> fitting(List<NewAttempt> attempts, Map<String, MachineAllocations.Free> free,
            List<UUID> conflicts) {
        List<NewAttempt> accepted = new ArrayList<>(attempts.size());
        Map<UUID, List<NewAttempt>> byJob = new LinkedHashMap<>();
        attempts.forEach(a -> byJob.computeIfAbsent(a.job().id(), j -> new ArrayList<>()).add(a));
        for (List<NewAttempt> replicas : byJob.values()) {
            Map<String, MachineAllocations.Free> left = new HashMap<>();
            boolean fits = true;
            for (NewAttempt a : replicas) {
                MachineAllocations.Free room = left.containsKey(a.machineId()) ? left.get(a.machineId()) : free.get(a.machineId());
                if (room == null || !a.held().fitsIn(room.room()) || room.attempts() < 1) {
                    fits = false;
                    break;
                }
                left.put(a.machineId(), new MachineAllocations.Free(room.room().minus(a.held()), room.attempts() - 1));
            }
            if (fits) {
                free.putAll(left);
                accepted.addAll(replicas);
            } else {
                conflicts.add(replicas.getFirst().job().id());
            }
        }
        return accepted;
    }

    private void take(List<NewAttempt> accepted) {
        machines.take(accepted.stream().map(NewAttempt::machineId).toList(), accepted.stream().map(NewAttempt::held).toList());
    }

    /** What {@link #write} wrote: the jobs now SCHEDULED, and their changes (for the metrics after commit). */
    private record Placed(List<Scheduled> scheduled, JobWrites.Applied applied) {
    }

    /**
     * The jobs' SCHEDULED transitions (through the door, with their history rows and events) and their
     * attempts; not the machines' counters.
     */
    private Placed write(List<NewAttempt> accepted, Instant now, Duration leaseTtl) {
        List<JobWrites.Change> changes = accepted.stream()
                .filter(a -> a.replica() == 0) // a gang moves once, named by its first replica's machine
                .map(a -> new JobWrites.Change(a.job().id(), JobState.QUEUED, a.job().version(), null,
                        Transition.placed(a.machineId())))
                .toList();
        // the rows were claimed FOR UPDATE by this transaction: nobody can have changed them
        JobWrites.Applied applied = writes.write(changes, now);
        JobWrites.requireAll(changes, applied);
        Map<UUID, JobRecord> byId = new HashMap<>();
        applied.jobs().forEach(job -> byId.put(job.id(), job));
        Map<UUID, String> peers = peers(accepted, byId);
        List<Attempts.New> placed = new ArrayList<>(accepted.size());
        List<Scheduled> scheduled = new ArrayList<>(accepted.size());
        for (NewAttempt a : accepted) {
            int attempt = byId.get(a.job().id()).attempt();
            placed.add(new Attempts.New(a.job().id(), attempt, a.machineId(), a.held(), a.replica(), a.job().replicas(),
                    peers.get(a.job().id())));
            scheduled.add(new Scheduled(a.job().id(), attempt, a.machineId()));
        }
        attemptRows.insert(placed, now, leaseTtl);
        return new Placed(scheduled, applied);
    }

    /** Each gang's peers ({@code host:port} of every replica, by rank), from its machines' addresses. */
    private Map<UUID, String> peers(List<NewAttempt> accepted, Map<UUID, JobRecord> byId) {
        List<NewAttempt> ofGangs = accepted.stream().filter(a -> a.job().replicas() > 1).toList();
        if (ofGangs.isEmpty()) {
            return Map.of();
        }
        Map<String, String> addresses = new HashMap<>();
        jdbc.sql("select id, coalesce(address, id) from machines where id = any(:ids)")
                .param("ids", ofGangs.stream().map(NewAttempt::machineId).distinct().toArray(String[]::new))
                .query(rs -> {
                    addresses.put(rs.getString(1), rs.getString(2));
                });
        Map<UUID, String[]> byRank = new HashMap<>();
        for (NewAttempt a : ofGangs) {
            byRank.computeIfAbsent(a.job().id(), j -> new String[a.job().replicas()])[a.replica()] =
                    addresses.get(a.machineId());
        }
        Map<UUID, String> peers = new HashMap<>();
        byRank.forEach((job, hosts) -> peers.put(job, String.join(",",
                GangRendezvous.peers(List.of(hosts), GangRendezvous.port(job, byId.get(job).attempt())))));
        return peers;
    }

    /**
     * Every live attempt's room and when, by its job's time limit, it will have ended ({@code endsAt} null: no limit),
     * for backfill. An attempt that has not started yet is counted as starting {@code now}.
     */
    public List<LiveEnd> liveEnds(Instant now) {
        return jdbc.sql("""
                        select a.machine_id, a.cpu_millis, a.memory_mb, a.gpu_count,
                               coalesce(a.started_at, :now) + make_interval(secs => (j.spec->'execution'->>'timeoutSeconds')::int)
                        from attempts a join jobs j on j.id = a.job_id
                        where a.released_at is null and a.state in ('SCHEDULED', 'RUNNING')""")
                .param("now", JobRows.ts(now))
                .query((rs, n) -> new LiveEnd(rs.getString(1), new Amounts(rs.getLong(2), rs.getLong(3), rs.getInt(4)),
                        JobRows.instant(rs, 5)))
                .list();
    }

    /** The time limits ({@code execution.timeoutSeconds}) of those of the jobs that have one. */
    public Map<UUID, Duration> timeLimits(Collection<UUID> jobIds) {
        Map<UUID, Duration> limits = new HashMap<>();
        if (jobIds.isEmpty()) {
            return limits;
        }
        jdbc.sql("""
                        select id, (spec->'execution'->>'timeoutSeconds')::int from jobs
                        where id = any(:ids) and spec->'execution'->>'timeoutSeconds' is not null""")
                .param("ids", jobIds.toArray(UUID[]::new))
                .query(rs -> {
                    limits.put(rs.getObject(1, UUID.class), Duration.ofSeconds(rs.getInt(2)));
                });
        return limits;
    }

    /** A live attempt's room on its machine, and when it ends by its time limit (null: it has none). */
    public record LiveEnd(String machineId, Amounts room, Instant endsAt) {
    }

    /**
     * Lets jobs waiting out a "fits nowhere" wait ({@link UnplacedKind#CAN_NEVER_FIT}) be claimed at once: call it when
     * the fleet changed (a machine joined). See {@link QueuedJobs#wakeUnplaceable}.
     *
     * @return how many were woken (at most {@code limit}, highest priority first)
     */
    public int wakeUnplaceable(int limit) {
        return queued.wakeUnplaceable(limit);
    }

    /**
     * A job placed on a machine, holding {@code held} there; {@code replica}: its rank in its gang (0 for a job of
     * one replica). A gang is placed with all its replicas in one commit, or not at all.
     */
    public record NewAttempt(ClaimedJob job, String machineId, Amounts held, int replica) {
        public NewAttempt(ClaimedJob job, String machineId, Amounts held) {
            this(job, machineId, held, 0);
        }

        public NewAttempt(ClaimedJob job, String machineId, long cpuMillis, long memoryMb, int gpuCount) {
            this(job, machineId, new Amounts(cpuMillis, memoryMb, gpuCount));
        }
    }

    /** A job now SCHEDULED: its attempt number and machine. */
    public record Scheduled(UUID jobId, int attempt, String machineId) {
    }

    /**
     * A job left QUEUED, why (the sentence and its kind), and the earliest time to look at it again (null:
     * no backoff; the scheduler passes over it in memory until room appears). {@code shown}: what the job's row
     * showed when it was claimed (and locked), null when not known.
     */
    public record Deferral(UUID jobId, UnplacedKind kind, String reason, Instant notBefore, Shown shown) {
        public Deferral(UUID jobId, UnplacedKind kind, String reason, Instant notBefore) {
            this(jobId, kind, reason, notBefore, null);
        }

        /**
         * Whether the row must be written: a backoff is always written; a reason is not when the row, as claimed,
         * shows the same kind and a reason that says the same but for its numbers (in a full fleet the same jobs
         * are found without room cycle after cycle, "0 of 100 machines fit: 97 have too little free CPU, 3 ...",
         * and the counts move with every placement). Decided here, so that such a job is not even sent.
         */
        public boolean writes() {
            return notBefore != null || shown == null || kind != shown.kind()
                    || !sameButCounts(reason, shown.reason());
        }

        /** Whether two reasons differ at most in their numbers. */
        static boolean sameButCounts(String a, String b) {
            if (a == null || b == null) {
                return a == b;
            }
            int i = 0;
            int j = 0;
            while (i < a.length() && j < b.length()) {
                if (digit(a, i) && digit(b, j)) {
                    while (digit(a, i)) {
                        i++;
                    }
                    while (digit(b, j)) {
                        j++;
                    }
                } else if (a.charAt(i++) != b.charAt(j++)) {
                    return false;
                }
            }
            return i == a.length() && j == b.length();
        }

        private static boolean digit(String s, int i) {
            return i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9';
        }
    }

    /** Why a queued job's row says it waits, as read when it was claimed: its kind (null: none) and reason. */
    public record Shown(UnplacedKind kind, String reason) {
    }

    /** The jobs now SCHEDULED, and those whose machine had no room left under lock (re-plan them). */
    public record CommitResult(List<Scheduled> scheduled, List<UUID> conflicts) {
    }

    /** A tenant's weight and quota (a null component is unlimited), and what it holds now. */
    public record TenantUsage(UUID id, int weight, Long quotaCpuMillis, Long quotaMemoryMb, Integer quotaGpuCount,
            Amounts used) {
    }
}
