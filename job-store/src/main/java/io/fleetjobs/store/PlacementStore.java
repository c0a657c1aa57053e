package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.JobState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The scheduler's reads and writes, batched: claim a batch of placeable queued jobs with
 * {@code FOR UPDATE SKIP LOCKED}, read the machines and tenants, and commit a plan (attempts,
 * attempts with what they hold, machine usage, SCHEDULED transitions, history, events) with a handful
 * of statements.
 * Claim, plan and commit belong in one transaction: the claimed rows stay locked until the plan is
 * committed, so no other replica can place them.
 */
public final class PlacementStore {
    private final JdbcClient jdbc;
    private final GpuHolds gpus;
    private final JobStore jobs;

    public PlacementStore(JdbcClient jdbc, JobStore jobs) {
        this.jdbc = jdbc;
        this.gpus = new GpuHolds(jdbc);
        this.jobs = jobs;
    }

    /** Locks up to {@code limit} QUEUED jobs whose time has come, by priority then age; skips rows other replicas hold. */
    public List<ClaimedJob> claim(int limit) {
        return claimWhere("", limit, null, null);
    }

    /**
     * As {@link #claim(int)}, but only jobs after the one of {@code priority} and {@code id} in the claim's
     * order (priority, then id): the scheduler passes over the jobs it found no room for without writing
     * to them. Two range scans of the claim index (the rest of that priority, then the lower priorities),
     * so that the jobs passed over cost nothing to skip.
     */
    public List<ClaimedJob> claimAfter(int limit, int priority, UUID id) {
        List<ClaimedJob> claimed = new ArrayList<>(claimWhere("and priority = :priority and id > :id", limit, priority, id));
        if (claimed.size() < limit) {
            claimed.addAll(claimWhere("and priority < :priority", limit - claimed.size(), priority, id));
        }
        return claimed;
    }

    private List<ClaimedJob> claimWhere(String condition, int limit, Integer afterPriority, UUID afterId) {
        var statement = jdbc.sql("""
                        select %s from jobs
                        where state = 'QUEUED' and not_before <= :now %s
                        order by priority desc, id
                        limit :limit
                        for update skip locked""".formatted(CLAIM_COLUMNS, condition))
                .param("now", JobStore.ts(jobs.clock().instant())).param("limit", limit);
        if (afterId != null) {
            statement = statement.param("priority", afterPriority).param("id", afterId);
        }
        return statement.query(CLAIMED).list();
    }

    private static final String CLAIM_COLUMNS = """
            id, tenant_id, version, priority, cpu_millis, memory_mb, gpu_count, gpu_type, region, created_at,
            spec->'placement'->'labels' as labels, spec->'placement'->>'strategy' as strategy""";

    @SuppressWarnings("unchecked")
    private static final org.springframework.jdbc.core.RowMapper<ClaimedJob> CLAIMED = (rs, n) -> {
        String labels = rs.getString("labels");
        String strategy = rs.getString("strategy");
        return new ClaimedJob(rs.getObject("id", UUID.class), rs.getObject("tenant_id", UUID.class), rs.getLong("version"),
                rs.getInt("priority"), rs.getLong("cpu_millis"), rs.getLong("memory_mb"), rs.getInt("gpu_count"),
                rs.getString("gpu_type"), rs.getString("region"),
                labels == null || labels.equals("{}") ? Map.of() : Json.read(labels, Map.class),
                strategy == null ? null : io.fleetjobs.model.PlacementStrategy.valueOf(strategy),
                JobStore.instant(rs, "created_at"));
    };

    /** Locks these jobs again, if they are still QUEUED and no other replica holds them. */
    public List<ClaimedJob> reclaim(List<UUID> ids) {
        return jdbc.sql("""
                        select %s from jobs
                        where id = any(cast(:ids as uuid[])) and state = 'QUEUED'
                        order by priority desc, id
                        for update skip locked""".formatted(CLAIM_COLUMNS))
                .param("ids", ids.stream().map(UUID::toString).toArray(String[]::new))
                .query(CLAIMED).list();
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
                        from tenants t left join (
                            select tenant_id, sum(cpu_millis) as cpu, sum(memory_mb) as mem, sum(gpu_count) as gpu
                            from jobs where state in ('SCHEDULED', 'RUNNING') group by tenant_id) u on u.tenant_id = t.id""")
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
     * fits written. Machine rows are locked {@code FOR NO KEY UPDATE}, which the foreign-key checks
     * of other transactions' attempt inserts ({@code FOR KEY SHARE}) do not wait for.
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
            Written optimistic = write(attempts, now, leaseTtl);
            List<UUID> conflicts = new ArrayList<>();
            List<NewAttempt> accepted = fitting(attempts, lockMachines(machineIds), conflicts);
            if (conflicts.isEmpty()) {
                jdbc.sql("release savepoint placement_optimistic").update();
                addUsage(accepted);
                jobs.afterCommitCount(optimistic.changes());
                result = new CommitResult(optimistic.scheduled(), List.of());
            } else {
                jdbc.sql("rollback to savepoint placement_optimistic").update();
                conflicts.clear();
                accepted = fitting(attempts, lockMachines(machineIds), conflicts);
                Written careful = accepted.isEmpty() ? new Written(List.of(), List.of()) : write(accepted, now, leaseTtl);
                addUsage(accepted);
                jobs.afterCommitCount(careful.changes());
                result = new CommitResult(careful.scheduled(), conflicts);
            }
        }
        holdGpus(result.scheduled(), attempts);
        defer(deferrals);
        return result;
    }

    /** Names the devices of the placed attempts that hold GPUs. */
    private void holdGpus(List<Scheduled> scheduled, List<NewAttempt> attempts) {
        Map<UUID, Integer> counts = new HashMap<>();
        attempts.forEach(a -> counts.put(a.job().id(), a.held().gpus()));
        gpus.hold(scheduled.stream()
                .map(s -> new GpuHolds.Request(s.jobId(), s.attempt(), s.machineId(), counts.get(s.jobId()))).toList());
    }

    /** Free capacity of these machines that are READY, their rows locked in id order. */
    private Map<String, Amounts> lockMachines(String[] machineIds) {
        Map<String, Amounts> free = new HashMap<>();
        jdbc.sql("""
                        select id, cpu_millis - alloc_cpu_millis, memory_mb - alloc_memory_mb, gpu_count - alloc_gpu_count
                        from machines where id = any(:ids) and status = 'READY' order by id for no key update""")
                .param("ids", machineIds)
                .query(rs -> {
                    free.put(rs.getString(1), new Amounts(rs.getLong(2), rs.getLong(3), rs.getInt(4)));
                });
        return free;
    }

    /** The attempts that fit, in plan order, taking room from {@code free}; the jobs of the others go to {@code conflicts}. */
    private static List<NewAttempt> fitting(List<NewAttempt> attempts, Map<String, Amounts> free, List<UUID> conflicts) {
        List<NewAttempt> accepted = new ArrayList<>(attempts.size());
        for (NewAttempt a : attempts) {
            Amounts room = free.get(a.machineId());
            if (room != null && a.held().fitsIn(room)) {
                free.put(a.machineId(), room.minus(a.held()));
                accepted.add(a);
            } else {
                conflicts.add(a.job().id());
            }
        }
        return accepted;
    }

    /** Adds what the attempts hold to their machines' counters (rows already locked by this transaction). */
    private void addUsage(List<NewAttempt> accepted) {
        if (accepted.isEmpty()) {
            return;
        }
        int n = accepted.size();
        String[] machines = new String[n];
        Long[] cpu = new Long[n];
        Long[] mem = new Long[n];
        Integer[] gpu = new Integer[n];
        for (int i = 0; i < n; i++) {
            NewAttempt a = accepted.get(i);
            machines[i] = a.machineId();
            cpu[i] = a.held().cpuMillis();
            mem[i] = a.held().memoryMb();
            gpu[i] = a.held().gpus();
        }
        jdbc.sql("""
                        update machines m set alloc_cpu_millis = m.alloc_cpu_millis + d.cpu,
                            alloc_memory_mb = m.alloc_memory_mb + d.mem, alloc_gpu_count = m.alloc_gpu_count + d.gpu
                        from (select u.m as id, sum(u.c) as cpu, sum(u.r) as mem, sum(u.g) as gpu
                              from unnest(cast(:m as text[]), cast(:c as bigint[]), cast(:r as bigint[]), cast(:g as int[]))
                                   as u(m, c, r, g) group by u.m) d
                        where m.id = d.id""")
                .param("m", machines).param("c", cpu).param("r", mem).param("g", gpu)
                .update();
    }

    /** What {@link #write} wrote: the jobs now SCHEDULED, and their changes (for history metrics after commit). */
    private record Written(List<Scheduled> scheduled, List<JobStore.Written> changes) {
    }

    /** The jobs' SCHEDULED transitions, their attempts, history rows and events; not the machines' counters. */
    private Written write(List<NewAttempt> accepted, Instant now, Duration leaseTtl) {
        int n = accepted.size();
        String[] jobIds = new String[n];
        Long[] versions = new Long[n];
        String[] machines = new String[n];
        Long[] cpu = new Long[n];
        Long[] mem = new Long[n];
        Integer[] gpu = new Integer[n];
        for (int i = 0; i < n; i++) {
            NewAttempt a = accepted.get(i);
            jobIds[i] = a.job().id().toString();
            versions[i] = a.job().version();
            machines[i] = a.machineId();
            cpu[i] = a.held().cpuMillis();
            mem[i] = a.held().memoryMb();
            gpu[i] = a.held().gpus();
        }
        var ts = JobStore.ts(now);
        List<JobStore.Written> after = jdbc.sql("""
                        update jobs j set state = 'SCHEDULED', version = j.version + 1, attempt = j.attempt + 1,
                            machine_id = d.machine, state_reason = 'placed on ' || d.machine || '; waiting for its agent to start it',
                            updated_at = :now
                        from unnest(cast(:ids as uuid[]), cast(:versions as bigint[]), cast(:machines as text[]))
                             as d(id, version, machine)
                        where j.id = d.id and j.state = 'QUEUED' and j.version = d.version
                        returning j.id, j.tenant_id, j.version, j.attempt, j.machine_id, j.state_reason""")
                .param("ids", jobIds).param("versions", versions).param("machines", machines).param("now", ts)
                .query((rs, i) -> new JobStore.Written(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class),
                        rs.getLong(3), JobState.QUEUED, JobState.SCHEDULED, rs.getString(6), now,
                        Map.of("attempt", Integer.toString(rs.getInt(4)), "machineId", rs.getString(5))))
                .list();
        if (after.size() != n) {
            // the rows were claimed FOR UPDATE by this transaction: nobody can have changed them
            throw new IllegalStateException("placed " + n + " claimed jobs but " + after.size() + " were still as read");
        }
        Map<UUID, JobStore.Written> byId = new HashMap<>();
        after.forEach(w -> byId.put(w.jobId(), w));
        Integer[] attemptNos = new Integer[n];
        for (int i = 0; i < n; i++) {
            attemptNos[i] = Integer.parseInt(byId.get(accepted.get(i).job().id()).data().get("attempt"));
        }
        jdbc.sql("""
                        insert into attempts (job_id, attempt, machine_id, state, lease_epoch, lease_expires_at, scheduled_at,
                                              cpu_millis, memory_mb, gpu_count)
                        select d.id, d.n, d.m, 'SCHEDULED', 1, :expires, :now, d.c, d.r, d.g
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(:m as text[]), cast(:c as bigint[]),
                                    cast(:r as bigint[]), cast(:g as int[])) as d(id, n, m, c, r, g)""")
                .param("ids", jobIds).param("n", attemptNos).param("m", machines).param("c", cpu).param("r", mem)
                .param("g", gpu).param("expires", JobStore.ts(now.plus(leaseTtl))).param("now", ts)
                .update();
        List<JobStore.Written> written = new ArrayList<>(n);
        List<Scheduled> scheduled = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            JobStore.Written w = byId.get(accepted.get(i).job().id());
            written.add(w);
            scheduled.add(new Scheduled(w.jobId(), attemptNos[i], machines[i]));
        }
        jobs.insertRecords(written);
        return new Written(scheduled, written);
    }

    /**
     * Writes why each job stays QUEUED, and its backoff where it has one: not a state change (no
     * version, history or event). A job left without a backoff whose reason is already the one it
     * shows is not written at all: in a full fleet the same jobs are found without room cycle after
     * cycle, and each write would be a new version of the row and of its index entries.
     */
    private void defer(List<Deferral> deferrals) {
        if (deferrals.isEmpty()) {
            return;
        }
        String[] ids = deferrals.stream().map(d -> d.jobId().toString()).toArray(String[]::new);
        String[] reasons = deferrals.stream().map(Deferral::reason).toArray(String[]::new);
        String[] notBefore = deferrals.stream().map(d -> d.notBefore() == null ? null : d.notBefore().toString())
                .toArray(String[]::new);
        jdbc.sql("""
                        update jobs j set state_reason = d.reason, not_before = coalesce(d.nb, j.not_before)
                        from unnest(cast(:ids as uuid[]), cast(:reasons as text[]), cast(cast(:nb as text[]) as timestamptz[]))
                             as d(id, reason, nb)
                        where j.id = d.id and j.state = 'QUEUED'
                          and (d.nb is not null or j.state_reason is distinct from d.reason)""")
                .param("ids", ids).param("reasons", reasons).param("nb", notBefore)
                .update();
    }

    /**
     * Lets jobs waiting out a "fits nowhere" backoff be claimed at once: call it when the fleet changed
     * (a machine joined), which may give them a machine. Only jobs whose reason begins with one of
     * {@code reasonPrefixes}; a retry's backoff is left to run. Reads the queued jobs to find them, so
     * the caller does it at most once per interval.
     *
     * @return how many were woken (at most {@code limit}, highest priority first)
     */
    public int wakeUnplaceable(List<String> reasonPrefixes, int limit) {
        String[] patterns = reasonPrefixes.stream()
                .map(p -> p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
                .toArray(String[]::new);
        return jdbc.sql("""
                        update jobs set not_before = :now where id in (
                            select id from jobs
                            where state = 'QUEUED' and not_before > :now and state_reason like any(cast(:patterns as text[]))
                            order by priority desc, id limit :limit for update skip locked)""")
                .param("now", JobStore.ts(jobs.clock().instant())).param("patterns", patterns).param("limit", limit)
                .update();
    }

    /** A job placed on a machine, holding {@code held} there. */
    public record NewAttempt(ClaimedJob job, String machineId, Amounts held) {
        public NewAttempt(ClaimedJob job, String machineId, long cpuMillis, long memoryMb, int gpuCount) {
            this(job, machineId, new Amounts(cpuMillis, memoryMb, gpuCount));
        }
    }

    /** A job now SCHEDULED: its attempt number and machine. */
    public record Scheduled(UUID jobId, int attempt, String machineId) {
    }

    /**
     * A job left QUEUED, why, and the earliest time to look at it again (null: no backoff; the
     * scheduler passes over it in memory until room appears).
     */
    public record Deferral(UUID jobId, String reason, Instant notBefore) {
    }

    /** The jobs now SCHEDULED, and those whose machine had no room left under lock (re-plan them). */
    public record CommitResult(List<Scheduled> scheduled, List<UUID> conflicts) {
    }

    /** A tenant's weight and quota (a null component is unlimited), and what it holds now. */
    public record TenantUsage(UUID id, int weight, Long quotaCpuMillis, Long quotaMemoryMb, Integer quotaGpuCount,
            Amounts used) {
    }
}
