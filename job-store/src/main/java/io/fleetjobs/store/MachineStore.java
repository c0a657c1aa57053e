package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.GpuDevice;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.agent.AgentProtocol;
import java.security.MessageDigest;
import java.sql.Array;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Machines: their capacity, what is allocated on them, their status. */
public final class MachineStore {
    static final String COLUMNS = """
            id, region, labels::text as labels, gpu_type, cpu_millis, memory_mb, gpu_count, alloc_cpu_millis,
            alloc_memory_mb, alloc_gpu_count, max_live_attempts, live_attempts, status, status_reason, last_heartbeat_at, isolation""";

    /** Parsed label sets by their JSON: a fleet has few distinct ones, and snapshots read every machine. */
    private static final Map<String, Map<String, String>> LABEL_SETS = new ConcurrentHashMap<>();

    @SuppressWarnings("unchecked")
    private static Map<String, String> labels(String json) {
        if (LABEL_SETS.size() > 10_000) {
            LABEL_SETS.clear();
        }
        return LABEL_SETS.computeIfAbsent(json, j -> Map.copyOf(Json.read(j, Map.class)));
    }

    static final RowMapper<MachineRow> MACHINE = (rs, n) -> new MachineRow(
            new FleetMachine(rs.getString("id"), rs.getString("region"), labels(rs.getString("labels")),
                    rs.getString("gpu_type"),
                    new Amounts(rs.getLong("cpu_millis"), rs.getLong("memory_mb"), rs.getInt("gpu_count")),
                    new Amounts(rs.getLong("alloc_cpu_millis"), rs.getLong("alloc_memory_mb"), rs.getInt("alloc_gpu_count")),
                    MachineStatus.valueOf(rs.getString("status")), rs.getInt("max_live_attempts"), rs.getInt("live_attempts")),
            rs.getString("status_reason"), JobRows.instant(rs, "last_heartbeat_at"), rs.getString("isolation"));

    /**
     * A (re)joining machine is READY, unless an operator took it out: that decision outlives the agent, and the machine
     * being declared LOST meanwhile.
     */
    private static final String KEEP_OPERATORS_STATUS = """
            status = coalesce(machines.operator_status, 'READY'), status_reason = machines.operator_reason""";

    private final JdbcClient jdbc;
    private final InstantSource clock;

    public MachineStore(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /**
     * Adds a machine READY with a fresh heartbeat, or updates its description and capacity (not what
     * is allocated on it) when it exists. Bumps its capacity version, which wakes jobs waiting for room.
     */
    public void register(String id, String region, Map<String, String> labels, String gpuType, long cpuMillis,
            long memoryMb, int gpuCount) {
        var now = JobRows.ts(clock.instant());
        jdbc.sql("""
                        insert into machines (id, region, labels, gpu_type, cpu_millis, memory_mb, gpu_count, status,
                                              last_heartbeat_at, joined_at, capacity_version)
                        values (:id, :region, cast(:labels as jsonb), :gpuType, :cpu, :mem, :gpu, 'READY', :now, :now, 1)
                        on conflict (id) do update set region = excluded.region, labels = excluded.labels,
                            gpu_type = excluded.gpu_type, cpu_millis = excluded.cpu_millis, memory_mb = excluded.memory_mb,
                            gpu_count = excluded.gpu_count, %s,
                            last_heartbeat_at = excluded.last_heartbeat_at,
                            capacity_version = machines.capacity_version + 1""".formatted(KEEP_OPERATORS_STATUS))
                .param("id", id).param("region", region).param("labels", Json.write(labels == null ? Map.of() : labels))
                .param("gpuType", gpuType).param("cpu", cpuMillis).param("mem", memoryMb).param("gpu", gpuCount)
                .param("now", now)
                .update();
    }

    /**
     * A machine's agent joins: the machine is added or its description and capacity updated, it
     * becomes READY with a fresh heartbeat, its incarnation is bumped and its credential replaced.
     * Call after ending the attempts of the previous incarnation (its allocations must be released
     * before the capacity may shrink).
     *
     * @return the new incarnation
     */
    public long join(String id, String region, Map<String, String> labels, String gpuType, long cpuMillis, long memoryMb,
            int gpuCount, byte[] credentialHash) {
        var now = JobRows.ts(clock.instant());
        return jdbc.sql("""
                        insert into machines (id, region, labels, gpu_type, cpu_millis, memory_mb, gpu_count, status,
                                              last_heartbeat_at, joined_at, capacity_version, incarnation, credential_hash)
                        values (:id, :region, cast(:labels as jsonb), :gpuType, :cpu, :mem, :gpu, 'READY', :now, :now, 1, 1, :cred)
                        on conflict (id) do update set region = excluded.region, labels = excluded.labels,
                            gpu_type = excluded.gpu_type, cpu_millis = excluded.cpu_millis, memory_mb = excluded.memory_mb,
                            gpu_count = excluded.gpu_count, %s,
                            last_heartbeat_at = excluded.last_heartbeat_at, joined_at = excluded.joined_at,
                            capacity_version = machines.capacity_version + 1,
                            incarnation = machines.incarnation + 1, credential_hash = excluded.credential_hash,
                            reset_at = null
                        returning incarnation""".formatted(KEEP_OPERATORS_STATUS))
                .param("id", id).param("region", region).param("labels", Json.write(labels == null ? Map.of() : labels))
                .param("gpuType", gpuType).param("cpu", cpuMillis).param("mem", memoryMb).param("gpu", gpuCount)
                .param("now", now).param("cred", credentialHash)
                .query(Long.class).single();
    }

    /** Records the GPU devices a machine offers (null: numbered 0…n-1); call in the transaction of its join. */
    public void offerGpus(String id, List<GpuDevice> devices) {
        jdbc.sql("update machines set gpu_devices = cast(:devices as jsonb) where id = :id")
                .param("id", id).param("devices", Json.write(devices == null ? List.of() : devices))
                .update();
    }

    /** Records where the machine's jobs can be reached by their gangs' peers (null: by the machine id); at its join. */
    public void recordAddress(String id, String address) {
        jdbc.sql("update machines set address = :address where id = :id")
                .param("id", id).param("address", address == null || address.isBlank() ? null : address)
                .update();
    }

    /** Records the most attempts the machine runs at once; call at its join. */
    public void recordMaxLiveAttempts(String id, int maxLiveAttempts) {
        jdbc.sql("update machines set max_live_attempts = :n where id = :id").param("id", id).param("n", maxLiveAttempts).update();
    }

    /** Records how the machine's agent holds its attempts apart ({@code sandbox}, {@code none}); call at its join. */
    public void recordIsolation(String id, String isolation) {
        recordIsolation(id, isolation, null);
    }

    /**
     * The same, with what its sandbox does not hold there ({@code gaps}: names such as {@code egress}; null when the
     * agent did not say).
     */
    public void recordIsolation(String id, String isolation, List<String> gaps) {
        jdbc.sql("update machines set isolation = :isolation, isolation_gaps = :gaps where id = :id")
                .param("id", id).param("isolation", "sandbox".equals(isolation) || "none".equals(isolation) ? isolation : null)
                .param("gaps", gaps == null ? null : gaps.toArray(String[]::new), Types.ARRAY)
                .update();
    }

    /** What one machine's sandbox does not hold, as its agent said; null when it did not say. */
    public List<String> isolationGaps(String id) {
        return jdbc.sql("select isolation_gaps from machines where id = :id and isolation_gaps is not null")
                .param("id", id)
                .query((rs, n) -> List.of((String[]) rs.getArray(1).getArray())).optional().orElse(null);
    }

    /** What each machine's sandbox does not hold, by machine, for those whose agents said (the machines API). */
    public Map<String, List<String>> isolationGapsByMachine() {
        Map<String, List<String>> gaps = new HashMap<>();
        jdbc.sql("select id, isolation_gaps from machines where isolation_gaps is not null")
                .query(rs -> {
                    gaps.put(rs.getString(1), List.of((String[]) rs.getArray(2).getArray()));
                });
        return gaps;
    }

    /** The GPU devices a machine offers, by index. */
    public List<GpuDevice> gpus(String id) {
        return jdbc.sql("select gpu_count, gpu_devices::text from machines where id = :id").param("id", id)
                .query((rs, n) -> GpuHolds.offered(rs.getInt(1), rs.getString(2))).optional().orElse(List.of());
    }

    /** The GPU devices of every machine that has any, by machine id. */
    public Map<String, List<GpuDevice>> gpusByMachine() {
        Map<String, List<GpuDevice>> gpus = new HashMap<>();
        jdbc.sql("select id, gpu_count, gpu_devices::text from machines where gpu_count > 0")
                .query(rs -> {
                    gpus.put(rs.getString(1), GpuHolds.offered(rs.getInt(2), rs.getString(3)));
                });
        return gpus;
    }

    /**
     * What a join must know of a machine id: its status, last heartbeat, whether it has a credential and whether
     * {@code presented} (a hash) is it, and whether it holds attempts. Locks the row: two joins for one id are
     * decided one after the other.
     */
    public Optional<JoinView> forJoin(String id, byte[] presented) {
        return jdbc.sql("""
                        select status, last_heartbeat_at, credential_hash,
                               exists (select 1 from attempts where machine_id = :id and released_at is null)
                        from machines where id = :id for no key update""")
                .param("id", id)
                .query((rs, n) -> {
                    byte[] stored = rs.getBytes(3);
                    return new JoinView(MachineStatus.valueOf(rs.getString(1)), JobRows.instant(rs, 2), stored != null,
                            stored != null && presented != null && MessageDigest.isEqual(stored, presented),
                            rs.getBoolean(4));
                })
                .optional();
    }

    public record JoinView(MachineStatus status, Instant lastHeartbeatAt, boolean hasCredential,
            boolean credentialMatches, boolean holdsAttempts) {
    }

    /** The machine a credential belongs to, and its current incarnation. */
    public Optional<Identity> byCredential(byte[] credentialHash) {
        return jdbc.sql("select id, incarnation from machines where credential_hash = :h")
                .param("h", credentialHash)
                .query((rs, n) -> new Identity(rs.getString(1), rs.getLong(2)))
                .optional();
    }

    public record Identity(String machineId, long incarnation) {
    }

    /** The machine's current incarnation (bumped by each join); empty for an unknown machine. */
    public Optional<Long> incarnation(String machineId) {
        return jdbc.sql("select incarnation from machines where id = :id").param("id", machineId)
                .query(Long.class).optional();
    }

    /**
     * Records the heartbeats of those machines whose row no other transaction holds, in one statement, and
     * answers which were written. A machine an operator reset is not heard until an agent joins for it (V44). Placements and attempt ends lock machine rows for the length of their
     * transactions; a heartbeat waiting behind them would make a busy machine look silent.
     */
    public Set<String> heartbeatsAvailable(Map<String, Instant> lastSeen) {
        return writeHeartbeats(lastSeen, " skip locked");
    }

    /** Records many heartbeats in one statement, waiting for rows other transactions hold. */
    public void heartbeats(Map<String, Instant> lastSeen) {
        writeHeartbeats(lastSeen, "");
    }

    /** The rows locked first, in id order as every writer of machines locks them (no deadlock with a placement). */
    private Set<String> writeHeartbeats(Map<String, Instant> lastSeen, String skipLocked) {
        if (lastSeen.isEmpty()) {
            return Set.of();
        }
        String[] ids = lastSeen.keySet().toArray(String[]::new);
        String[] at = Arrays.stream(ids).map(id -> lastSeen.get(id).toString()).toArray(String[]::new);
        return new HashSet<>(jdbc.sql("""
                        with locked as (select id from machines where id = any(cast(:ids as text[])) and reset_at is null
                                        order by id for no key update%s)
                        update machines m set last_heartbeat_at = greatest(m.last_heartbeat_at, d.at)
                        from unnest(cast(:ids as text[]), cast(cast(:at as text[]) as timestamptz[])) as d(id, at)
                        where m.id = d.id and m.id in (select id from locked)
                        returning m.id""".formatted(skipLocked))
                .param("ids", ids).param("at", at)
                .query(String.class).list());
    }

    /**
     * How much of the attempts still to start one read of a machine carries (their executions' JSON, in the order they
     * were placed), the first one always: a spec may be nearly a MiB (the request's limit), a machine may hold
     * thousands of attempts of a thousandth of a core, and one tenant's flood of such jobs had every heartbeat of the
     * machine read (and answer) all of them, until the scheduler ran out of memory and its fleet looked dead. The
     * attempts past it come without their execution ({@link AssignedAttempt#execution} null): started by a later
     * answer, once those before them run.
     */
    public static final int START_BYTES_PER_READ = 1024 * 1024;

    /** The attempts a machine should be running now, with what the agent needs to start them. */
    public List<AssignedAttempt> liveAttempts(String machineId) {
        return liveAttempts(machineId, null).orElse(List.of());
    }

    /**
     * As {@link #liveAttempts(String)}, in the same read as the machine's incarnation: empty when the machine is not
     * at {@code incarnation} (a newer join superseded it, or it is gone); any incarnation when null.
     */
    public Optional<List<AssignedAttempt>> liveAttempts(String machineId, Long incarnation) {
        // of the spec only the execution, and only of attempts still to start (what the agent needs to
        // start them), within START_BYTES_PER_READ: a heartbeat of a busy machine lists every running attempt, and
        // parsing JSON costs
        List<Long> incarnations = new ArrayList<>(1);
        List<AssignedAttempt> live = new ArrayList<>();
        jdbc.sql("""
                        select mc.incarnation, a.job_id, a.attempt, a.lease_epoch, a.state, j.cancel_requested,
                               case when a.state = 'SCHEDULED' and coalesce(sum(pg_column_size(j.spec->'execution'))
                                       filter (where a.state = 'SCHEDULED') over (order by a.lease_epoch
                                       rows between unbounded preceding and 1 preceding), 0) < :budget
                                   then j.spec->'execution' end as execution,
                               a.cpu_millis, a.memory_mb, a.gpu_indices,
                               case when a.state = 'SCHEDULED' then greatest(0, floor(
                                   extract(epoch from a.lease_expires_at - clock_timestamp()) * 1000))::bigint end,
                               a.preempted_by is not null, a.replica, a.world_size, a.peers, a.gang_failed,
                               a.started_at + make_interval(secs => (j.spec->'execution'->>'timeoutSeconds')::int)
                        from machines mc
                        left join attempts a on a.machine_id = mc.id and a.released_at is null
                            and a.state in ('SCHEDULED', 'RUNNING')
                        left join jobs j on j.id = a.job_id
                        where mc.id = :m
                        order by a.lease_epoch""")
                .param("m", machineId).param("budget", START_BYTES_PER_READ)
                .query(rs -> {
                    if (incarnations.isEmpty()) {
                        incarnations.add(rs.getLong(1));
                    }
                    if (rs.getObject(2) == null) {
                        return;
                    }
                    String execution = rs.getString(7);
                    int worldSize = rs.getInt(14);
                    String peers = rs.getString(15);
                    var gang = worldSize <= 1 ? null : new AgentProtocol.Gang(rs.getInt(13),
                            worldSize, peers == null ? List.of() : List.of(peers.split(",")));
                    live.add(new AssignedAttempt(rs.getObject(2, UUID.class), rs.getInt(3), rs.getLong(4),
                            AttemptState.valueOf(rs.getString(5)), rs.getBoolean(6),
                            execution == null ? null : Json.read(execution, Execution.class),
                            rs.getLong(8), rs.getLong(9), gpuIndices(rs.getArray(10)), (Long) rs.getObject(11),
                            rs.getBoolean(12), gang, rs.getBoolean(16), JobRows.instant(rs, 17)));
                });
        if (incarnations.isEmpty() || (incarnation != null && incarnations.getFirst() != incarnation.longValue())) {
            return Optional.empty();
        }
        return Optional.of(live);
    }

    static List<Integer> gpuIndices(Array array) throws SQLException {
        return array == null ? List.of() : List.of((Integer[]) array.getArray());
    }

    /** What changes the machines' status besides heartbeats and joins: operators, auto-drain, the reconciler. */
    public MachineStatusStore statuses() {
        return new MachineStatusStore(jdbc, clock);
    }

    public List<MachineRow> all() {
        return jdbc.sql("select " + COLUMNS + " from machines order by id").query(MACHINE).list();
    }

    public Optional<MachineRow> get(String id) {
        return jdbc.sql("select " + COLUMNS + " from machines where id = :id").param("id", id).query(MACHINE).optional();
    }
}
