package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.ReportFence;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.model.agent.LogTail;
import java.time.Duration;
import java.time.Instant;
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

    /** An attempt as locked: what the fence checks, and what it holds on its machine. */
    record Current(ReportFence.RecordedAttempt recorded, Amounts held) {
        AttemptState state() {
            return recorded.state();
        }

        String machineId() {
            return recorded.machineId();
        }
    }

    /** A new attempt of a job just placed, SCHEDULED on its machine with a first lease. */
    record New(UUID jobId, int attempt, String machineId, Amounts held) {
    }

    void insert(List<New> placed, Instant now, Duration leaseTtl) {
        jdbc.sql("""
                        insert into attempts (job_id, attempt, machine_id, state, lease_epoch, lease_expires_at, scheduled_at,
                                              cpu_millis, memory_mb, gpu_count)
                        select d.id, d.n, d.m, 'SCHEDULED', nextval('lease_epochs'), :expires, :now, d.c, d.r, d.g
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(:m as text[]), cast(:c as bigint[]),
                                    cast(:r as bigint[]), cast(:g as int[])) as d(id, n, m, c, r, g)""")
                .param("ids", JobRows.ids(placed.stream().map(New::jobId).toList()))
                .param("n", placed.stream().map(New::attempt).toArray(Integer[]::new))
                .param("m", placed.stream().map(New::machineId).toArray(String[]::new))
                .param("c", placed.stream().map(a -> a.held().cpuMillis()).toArray(Long[]::new))
                .param("r", placed.stream().map(a -> a.held().memoryMb()).toArray(Long[]::new))
                .param("g", placed.stream().map(a -> a.held().gpus()).toArray(Integer[]::new))
                .param("expires", JobRows.ts(now.plus(leaseTtl))).param("now", JobRows.ts(now))
                .update();
    }

    /** The reported attempts as they are, locked, in (job, attempt) order; {@code skipLocked}: not waiting for others' locks. */
    Map<Key, Current> lock(List<AttemptReport> reports, boolean skipLocked) {
        Map<Key, Current> found = new HashMap<>();
        jdbc.sql("""
                        select a.job_id, a.attempt, a.state, a.lease_epoch, a.machine_id, a.cpu_millis, a.memory_mb, a.gpu_count
                        from attempts a join unnest(cast(:ids as uuid[]), cast(:n as int[])) as d(id, n)
                             on a.job_id = d.id and a.attempt = d.n
                        order by a.job_id, a.attempt for update of a""" + (skipLocked ? " skip locked" : ""))
                .param("ids", JobRows.ids(reports.stream().map(AttemptReport::jobId).toList()))
                .param("n", reports.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .query(rs -> {
                    found.put(new Key(rs.getObject(1, UUID.class), rs.getInt(2)), new Current(new ReportFence.RecordedAttempt(
                            AttemptState.valueOf(rs.getString(3)), rs.getLong(4), rs.getString(5)),
                            new Amounts(rs.getLong(6), rs.getLong(7), rs.getInt(8))));
                });
        return found;
    }

    /** Those of these attempts that exist. */
    Set<Key> existing(Collection<Key> keys) {
        Set<Key> exist = new HashSet<>();
        jdbc.sql("""
                        select a.job_id, a.attempt from attempts a
                        join unnest(cast(:ids as uuid[]), cast(:n as int[])) as d(id, n) on a.job_id = d.id and a.attempt = d.n""")
                .param("ids", JobRows.ids(keys.stream().map(Key::jobId).toList()))
                .param("n", keys.stream().map(Key::attempt).toArray(Integer[]::new))
                .query(rs -> {
                    exist.add(new Key(rs.getObject(1, UUID.class), rs.getInt(2)));
                });
        return exist;
    }

    /** RUNNING since the reported start (else {@code now}). */
    void markRunning(List<AttemptReport> started, Instant now) {
        if (started.isEmpty()) {
            return;
        }
        jdbc.sql("""
                        update attempts a set state = 'RUNNING', started_at = d.at
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(cast(:at as text[]) as timestamptz[]))
                             as d(id, n, at)
                        where a.job_id = d.id and a.attempt = d.n""")
                .param("ids", JobRows.ids(started.stream().map(AttemptReport::jobId).toList()))
                .param("n", started.stream().map(AttemptReport::attempt).toArray(Integer[]::new))
                .param("at", started.stream().map(r -> (r.startedAt() == null ? now : r.startedAt()).toString())
                        .toArray(String[]::new))
                .update();
    }

    /** Ended as reported, with their output, and released (what they held is given back by the caller). */
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
        for (int i = 0; i < n; i++) {
            AttemptReport r = ended.get(i);
            ids[i] = r.jobId().toString();
            attempts[i] = r.attempt();
            states[i] = r.state().name();
            finished[i] = (r.finishedAt() == null ? now : r.finishedAt()).toString();
            exits[i] = r.exitCode();
            reasons[i] = r.failureReason() == null ? null : r.failureReason().name();
            startedAt[i] = r.startedAt() == null ? null : r.startedAt().toString();
            stdout[i] = LogTail.cap(r.stdoutTail()); // whatever the agent sent: the server keeps 64 KiB of each
            stderr[i] = LogTail.cap(r.stderrTail());
        }
        jdbc.sql("""
                        update attempts a set state = d.state, finished_at = d.finished, exit_code = d.exit,
                            failure_reason = d.reason, started_at = coalesce(a.started_at, d.started),
                            log_tail_stdout = d.out, log_tail_stderr = d.err, released_at = :now, lease_expires_at = null
                        from unnest(cast(:ids as uuid[]), cast(:n as int[]), cast(:states as text[]),
                                    cast(cast(:finished as text[]) as timestamptz[]), cast(:exits as int[]),
                                    cast(:reasons as text[]), cast(cast(:started as text[]) as timestamptz[]),
                                    cast(:out as text[]), cast(:err as text[]))
                             as d(id, n, state, finished, exit, reason, started, out, err)
                        where a.job_id = d.id and a.attempt = d.n""")
                .param("ids", ids).param("n", attempts).param("states", states).param("finished", finished)
                .param("exits", exits).param("reasons", reasons).param("started", startedAt)
                .param("out", stdout).param("err", stderr).param("now", JobRows.ts(now))
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
