package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.GangRule;
import io.fleetjobs.model.ReportFence;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.model.agent.LogTail;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The attempt rows: created by placement, moved by reports, each batch in one statement. */
final class Attempts {
    private final JdbcClient jdbc;

    Attempts(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    record Key(UUID jobId, int attempt) {
        static Key of(AttemptReport r) {
            return new Key(r.jobId(), r.attempt());
        }
    }

    /**
     * An attempt as locked: what the fence checks, what it holds on its machine, and how many replicas its gang
     * has (1 for a job of one replica).
     */
    /** @param preemptedBy the job it is being ended for ({@code attempts.preempted_by}); null for most */
    record Current(ReportFence.RecordedAttempt recorded, Amounts held, int worldSize, UUID preemptedBy) {
        AttemptState state() {
            return recorded.state();
        }

        String machineId() {
            return recorded.machineId();
        }
    }

    /**
     * A new attempt of a job just placed, SCHEDULED on its machine with a first lease: replica {@code replica} of
     * {@code worldSize} (0 of 1 for a job of one replica), {@code peers} every replica's host:port by rank (null
     * for a job of one replica).
     */
    record New(UUID jobId, int attempt, String machineId, Amounts held, int replica, int worldSize, String peers) {
        New(UUID jobId, int attempt, String machineId, Amounts held) {
            this(jobId, attempt, machineId, held, 0, 1, null);
        }
    }

    void insert(List<New> placed, Instant now, Duration leaseTtl) {
        jdbc.sql("""
                        insert into attempts (job_id, attempt, machine_id, state, lease_epoch, lease_expires_at, scheduled_at,
                                              cpu_millis, memory_mb, gpu_count, replica, world_size, peers)
                        select d.id, d.n, d.m, 'SCHEDULED', nextval('lease_epochs'), :expires, :now, d.c, d.r, d.g,
                               d.rank, d.world, d.peers
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(:m as text[]), cast(:c as bigint[]),
                                    cast(:r as bigint[]), cast(:g as int[]), cast(:rank as int[]), cast(:world as int[]),
                                    cast(:peers as text[])) as d(id, n, m, c, r, g, rank, world, peers)""")
                .param("ids", JobRows.ids(placed.stream().map(New::jobId).toList()))
                .param("n", placed.stream().map(New::attempt).toArray(Integer[]::new))
                .param("m", placed.stream().map(New::machineId).toArray(String[]::new))
                .param("c", placed.stream().map(a -> a.held().cpuMillis()).toArray(Long[]::new))
                .param("r", placed.stream().map(a -> a.held().memoryMb()).toArray(Long[]::new))
                .param("g", placed.stream().map(a -> a.held().gpus()).toArray(Integer[]::new))
                .param("rank", placed.stream().map(New::replica).toArray(Integer[]::new))
                .param("world", placed.stream().map(New::worldSize).toArray(Integer[]::new))
                .param("peers", placed.stream().map(New::peers).toArray(String[]::new))
                .param("expires", JobRows.ts(now.plus(leaseTtl))).param("now", JobRows.ts(now))
                .update();
    }

    /**
     * The reported attempts as they are, locked, in (job, attempt, replica) order; {@code skipLocked}: not waiting
     * for others' locks. Reports of distinct jobs. A gang's replica is the one of the report's lease epoch (epochs
     * come from one sequence), so a report locks its own replica only; a job of one replica is found whatever the
     * epoch, for the fence to judge.
     */
    Map<Key, Current> lock(List<AttemptReport> reports, boolean skipLocked) {
        Map<Key, Current> found = new HashMap<>();
        jdbc.sql("""
                        select a.job_id, a.attempt, a.state, a.lease_epoch, a.machine_id, a.cpu_millis, a.memory_mb, a.gpu_count,
                               a.world_size, a.preempted_by
                        from attempts a join unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(:e as bigint[])) as d(id, n, e)
                             on a.job_id = d.id and a.attempt = d.n and (a.world_size = 1 or a.lease_epoch = d.e)
                        order by a.job_id, a.attempt, a.replica for update of a""" + (skipLocked ? " skip locked" : ""))
                .param("ids", JobRows.ids(reports.stream().map(AttemptReport::jobId).toList()))
                .param("n", reports.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .param("e", reports.stream().map(AttemptReport::epoch).toArray(Long[]::new))
                .query(rs -> {
                    found.put(new Key(rs.getObject(1, UUID.class), rs.getInt(2)), new Current(new ReportFence.RecordedAttempt(
                            AttemptState.valueOf(rs.getString(3)), rs.getLong(4), rs.getString(5)),
                            new Amounts(rs.getLong(6), rs.getLong(7), rs.getInt(8)), rs.getInt(9),
                            rs.getObject(10, UUID.class)));
                });
        return found;
    }

    /** Those of these reports' attempts that exist (a gang's replica: the one of the report's epoch). */
    Set<Key> existing(Collection<AttemptReport> reports) {
        Set<Key> exist = new HashSet<>();
        jdbc.sql("""
                        select a.job_id, a.attempt from attempts a
                        join unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(:e as bigint[])) as d(id, n, e)
                             on a.job_id = d.id and a.attempt = d.n and (a.world_size = 1 or a.lease_epoch = d.e)""")
                .param("ids", JobRows.ids(reports.stream().map(AttemptReport::jobId).toList()))
                .param("n", reports.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .param("e", reports.stream().map(AttemptReport::epoch).toArray(Long[]::new))
                .query(rs -> {
                    exist.add(new Key(rs.getObject(1, UUID.class), rs.getInt(2)));
                });
        return exist;
    }

    /**
     * RUNNING since the reported start, where it lies between the attempt's placement and {@code now}; else since
     * {@code now}, when the control plane heard of it. The agent's clock is not ours: a start an hour behind would put
     * the attempt past its time limit (the heartbeat's backstop, {@code started_at} plus the limit, kills it at once),
     * and the same bounds hold the end's times in {@link #end}.
     */
    void markRunning(List<AttemptReport> started, Instant now) {
        if (started.isEmpty()) {
            return;
        }
        jdbc.sql("""
                        update attempts a set state = 'RUNNING',
                            started_at = case when d.at between a.scheduled_at and :now then d.at else :now end
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(cast(:at as text[]) as timestamptz[]),
                                    cast(:e as bigint[])) as d(id, n, at, e)
                        where a.job_id = d.id and a.attempt = d.n and a.lease_epoch = d.e""")
                .param("now", JobRows.ts(now))
                .param("ids", JobRows.ids(started.stream().map(AttemptReport::jobId).toList()))
                .param("e", started.stream().map(AttemptReport::epoch).toArray(Long[]::new))
                .param("n", started.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .param("at", started.stream().map(r -> (r.startedAt() == null ? now : r.startedAt()).toString())
                        .toArray(String[]::new))
                .update();
    }

    /**
     * Ended as reported, with their output, and released (what they held is given back by the caller). The reported
     * end is kept where it lies between the attempt's start (or placement) and {@code now}, else it is {@code now};
     * a start carried by the end (of an attempt never recorded running) where it lies between the placement and that
     * end, else it is the end.
     */
    void end(List<AttemptReport> ended, Instant now) {
        if (ended.isEmpty()) {
            return;
        }
        int n = ended.size();
        String[] ids = new String[n];
        Integer[] attempts = new Integer[n];
        String[] states = new String[n];
        String[] finished = new String[n];
        Integer[] exits = new Integer[n];
        String[] reasons = new String[n];
        String[] startedAt = new String[n];
        String[] stdout = new String[n];
        String[] stderr = new String[n];
        Long[] epochs = new Long[n];
        for (int i = 0; i < n; i++) {
            AttemptReport r = ended.get(i);
            epochs[i] = r.epoch();
            ids[i] = r.jobId().toString();
            attempts[i] = r.attempt();
            states[i] = r.state().name();
            finished[i] = (r.finishedAt() == null ? now : r.finishedAt()).toString();
            exits[i] = r.exitCode();
            reasons[i] = r.failureReason() == null ? null : r.failureReason().name();
            startedAt[i] = r.startedAt() == null ? null : r.startedAt().toString();
            stdout[i] = LogTail.stored(r.stdoutTail()); // whatever the agent sent: 64 KiB of each, no NUL
            stderr[i] = LogTail.stored(r.stderrTail());
        }
        jdbc.sql("""
                        update attempts a set state = d.state, exit_code = d.exit, failure_reason = d.reason,
                            finished_at = case when d.finished between coalesce(a.started_at, a.scheduled_at) and :now
                                then d.finished else :now end,
                            started_at = coalesce(a.started_at, case when d.started is null then null
                                when d.started between a.scheduled_at and least(d.finished, :now) then d.started
                                when d.finished between a.scheduled_at and :now then d.finished else :now end),
                            log_tail_stdout = d.out, log_tail_stderr = d.err, released_at = :now, lease_expires_at = null
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(:states as text[]),
                                    cast(cast(:finished as text[]) as timestamptz[]), cast(:exits as int[]),
                                    cast(:reasons as text[]), cast(cast(:started as text[]) as timestamptz[]),
                                    cast(:out as text[]), cast(:err as text[]), cast(:e as bigint[]))
                             as d(id, n, state, finished, exit, reason, started, out, err, e)
                        where a.job_id = d.id and a.attempt = d.n and a.lease_epoch = d.e""")
                .param("e", epochs)
                .param("ids", ids).param("n", attempts).param("states", states).param("finished", finished)
                .param("exits", exits).param("reasons", reasons).param("started", startedAt)
                .param("out", stdout).param("err", stderr).param("now", JobRows.ts(now))
                .update();
    }

    /** Every replica of these gangs' attempts as it stands (the caller holds the jobs' rows), by job. */
    Map<UUID, List<GangRule.Replica>> replicas(List<AttemptReport> ends) {
        Map<UUID, List<GangRule.Replica>> byJob = new HashMap<>();
        if (ends.isEmpty()) {
            return byJob;
        }
        jdbc.sql("""
                        select a.job_id, a.replica, a.state, a.exit_code, a.failure_reason, a.finished_at
                        from attempts a join unnest(cast(:ids as uuid[]), cast(:n as int[])) as d(id, n)
                             on a.job_id = d.id and a.attempt = d.n
                        order by a.job_id, a.replica""")
                .param("ids", JobRows.ids(ends.stream().map(AttemptReport::jobId).toList()))
                .param("n", ends.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .query(rs -> {
                    String reason = rs.getString(5);
                    Timestamp finished = rs.getTimestamp(6);
                    byJob.computeIfAbsent(rs.getObject(1, UUID.class), j -> new ArrayList<>())
                            .add(new GangRule.Replica(rs.getInt(2), AttemptState.valueOf(rs.getString(3)),
                                    (Integer) rs.getObject(4), reason == null ? null : FailureReason.valueOf(reason),
                                    finished == null ? null : finished.toInstant()));
                });
        return byJob;
    }

    /** Marks the live replicas of these gangs' attempts to be ended, another replica having failed. */
    void endGangs(List<AttemptReport> failedReplicas) {
        if (failedReplicas.isEmpty()) {
            return;
        }
        jdbc.sql("""
                        update attempts a set gang_failed = true
                        from unnest(cast(:ids as uuid[]), cast(:n as int[])) as d(id, n)
                        where a.job_id = d.id and a.attempt = d.n and a.state in ('SCHEDULED', 'RUNNING')
                          and not a.gang_failed""")
                .param("ids", JobRows.ids(failedReplicas.stream().map(AttemptReport::jobId).toList()))
                .param("n", failedReplicas.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .update();
    }

    /** The live attempts of a machine, as reports of their failure for {@code reason}. */
    List<AttemptReport> liveAsFailed(String machineId, FailureReason reason) {
        return jdbc.sql("""
                        select job_id, attempt, lease_epoch from attempts
                        where machine_id = :m and released_at is null and state in ('SCHEDULED', 'RUNNING')""")
                .param("m", machineId)
                .query((rs, n) -> new AttemptReport(rs.getObject(1, UUID.class), rs.getInt(2), rs.getLong(3), machineId,
                        AttemptState.FAILED, null, reason, null, null, null, null))
                .list();
    }
}
