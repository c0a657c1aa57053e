package io.fleetjobs.store;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.RetryPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.simple.JdbcClient;

/** What callers read of jobs: rows, history, attempts and their output. */
final class JobReads {
    private final JdbcClient jdbc;

    JobReads(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<JobRecord> get(UUID id) {
        return jdbc.sql("select " + JobRows.COLUMNS + " from jobs where id = :id").param("id", id).query(JobRows.JOB).optional();
    }

    Optional<JobRecord> find(UUID tenantId, UUID id) {
        return jdbc.sql("select " + JobRows.COLUMNS + " from jobs where id = :id and tenant_id = :t")
                .param("id", id).param("t", tenantId).query(JobRows.JOB).optional();
    }

    /**
     * Served by the one index {@code (tenant_id, state, id desc)}: without a state, as the merge of one short
     * range scan per state (at most {@code limit} rows each), so that no second index on
     * {@code (tenant_id, id)} has to be written at every change of every job.
     */
    JobStore.Page list(UUID tenantId, JobFilter filter, UUID after, int limit) {
        String range = " from jobs where tenant_id = :t and state = %s" + (after != null ? " and id < :after" : "")
                + (filter.queue() != null ? " and queue = :queue" : "")
                + (filter.name() != null ? " and strpos(lower(name), lower(:name)) > 0" : "")
                + (filter.labelKey() == null ? "" : filter.labelValue() == null
                        ? " and spec->'labels'->>cast(:lk as text) is not null" : " and spec->'labels'->>cast(:lk as text) = :lv")
                + " order by id desc limit :limit";
        String sql;
        if (filter.state() != null) {
            sql = "select " + JobRows.COLUMNS + range.formatted(":state");
        } else {
            sql = Arrays.stream(JobState.values())
                    .map(s -> "(select " + JobRows.COLUMNS + range.formatted("'" + s.name() + "'") + ")")
                    .collect(Collectors.joining(" union all ", "select * from (", ") j order by id desc limit :limit"));
        }
        // limit + 1 rows tell whether more follow; past PAGE_BYTES of specs (the first always) a row comes without its spec
        String paged = "select case when w.bytes_before < :budget then w.spec end as spec, "
                + JobRows.prefixed("w", JobRows.COLUMNS_BUT_SPEC) + " from (select p.*, coalesce(sum(octet_length(cast("
                + "p.spec as text))) over (order by p.id desc rows between unbounded preceding and 1 preceding), 0)"
                + " as bytes_before from (" + sql + ") p) w order by w.id desc";
        JdbcClient.StatementSpec q = jdbc.sql(paged).param("t", tenantId).param("limit", limit + 1)
                .param("budget", JobStore.PAGE_BYTES);
        if (filter.state() != null) {
            q = q.param("state", filter.state().name());
        }
        if (after != null) {
            q = q.param("after", after);
        }
        if (filter.queue() != null) {
            q = q.param("queue", filter.queue());
        }
        if (filter.name() != null) {
            q = q.param("name", filter.name());
        }
        if (filter.labelKey() != null) {
            q = q.param("lk", filter.labelKey());
            if (filter.labelValue() != null) {
                q = q.param("lv", filter.labelValue());
            }
        }
        List<JobRecord> jobs = new ArrayList<>(Math.min(limit, 64));
        boolean[] more = {false};
        q.query(rs -> {
            if (jobs.size() < limit && rs.getString("spec") != null && !more[0]) {
                jobs.add(JobRows.JOB.mapRow(rs, jobs.size()));
            } else {
                more[0] = true;
            }
        });
        return new JobStore.Page(List.copyOf(jobs), more[0]);
    }

    /**
     * How many changes entered each state in each bucket since a time: of one tenant's jobs, or of every tenant's
     * (null), by bucket start (epoch seconds, a multiple of the bucket).
     */
    Map<Long, Map<JobState, Long>> activity(UUID tenantId, Instant since, int bucketSeconds) {
        Map<Long, Map<JobState, Long>> buckets = new TreeMap<>();
        jdbc.sql("""
                        select cast(floor(extract(epoch from h.at) / :b) as bigint) * :b, h.to_state, count(*)
                        from job_history h join jobs j on j.id = h.job_id
                        where h.at >= :since and (cast(:t as uuid) is null or j.tenant_id = :t)
                        group by 1, 2""")
                .param("b", bucketSeconds).param("since", JobRows.ts(since)).param("t", tenantId)
                .query(rs -> {
                    buckets.computeIfAbsent(rs.getLong(1), k -> new EnumMap<>(JobState.class))
                            .put(JobState.valueOf(rs.getString(2)), rs.getLong(3));
                });
        return buckets;
    }

    List<HistoryEntry> history(UUID jobId) {
        return jdbc.sql("select version, at, from_state, to_state, reason from job_history where job_id = :id order by version")
                .param("id", jobId)
                .query((rs, n) -> new HistoryEntry(rs.getLong(1), JobRows.instant(rs, 2), JobRows.state(rs.getString(3)),
                        JobRows.state(rs.getString(4)), rs.getString(5)))
                .list();
    }

    List<AttemptRecord> attempts(UUID jobId) {
        return jdbc.sql("""
                        select job_id, attempt, machine_id, state, lease_epoch, scheduled_at, started_at, finished_at,
                               exit_code, failure_reason, gpu_indices, replica, world_size
                        from attempts where job_id = :id order by attempt, replica""")
                .param("id", jobId)
                .query((rs, n) -> new AttemptRecord(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3),
                        AttemptState.valueOf(rs.getString(4)), rs.getLong(5), JobRows.instant(rs, 6), JobRows.instant(rs, 7),
                        JobRows.instant(rs, 8), (Integer) rs.getObject(9), JobRows.failure(rs.getString(10)),
                        MachineStore.gpuIndices(rs.getArray(11)), rs.getInt(12), rs.getInt(13)))
                .list();
    }

    Optional<JobStore.Logs> logs(UUID jobId, int attempt, int replica) {
        return jdbc.sql("select log_tail_stdout, log_tail_stderr from attempts where job_id = :id and attempt = :n"
                        + " and replica = :r")
                .param("id", jobId).param("n", attempt).param("r", replica)
                .query((rs, n) -> new JobStore.Logs(rs.getString(1) == null ? "" : rs.getString(1),
                        rs.getString(2) == null ? "" : rs.getString(2)))
                .optional();
    }

    List<JobRecord> stuckSubmitted(Instant before, int limit) {
        return jdbc.sql("select " + JobRows.COLUMNS
                        + " from jobs where state = 'SUBMITTED' and updated_at < :before order by updated_at limit :limit")
                .param("before", JobRows.ts(before)).param("limit", limit).query(JobRows.JOB).list();
    }

    /**
     * A job locked to apply a report: its row without the spec ({@link JobRecord#spec()} is null), which
     * applying a report does not need but for the retry policy, read alone as JSON and parsed only for
     * an attempt that failed: parsing the spec of every job whose attempt reports in costs much CPU.
     */
    record LockedJob(JobRecord job, String retryJson) {
        static JobRecord job(LockedJob locked) {
            return locked == null ? null : locked.job;
        }

        RetryPolicy retry() {
            return retryJson == null ? RetryPolicy.DEFAULT : Json.read(retryJson, RetryPolicy.class);
        }
    }

    /** These jobs, locked in id order, for reports of their attempts. */
    Map<UUID, LockedJob> lockForReports(List<UUID> jobIds) {
        Map<UUID, LockedJob> rows = new HashMap<>();
        jdbc.sql("select " + JobRows.COLUMNS_BUT_SPEC + ", spec->'retry' as retry from jobs"
                        + " where id = any(cast(:ids as uuid[])) order by id for update")
                .param("ids", JobRows.ids(jobIds))
                .query((rs, n) -> new LockedJob(JobRows.job(rs, null), rs.getString("retry"))).list()
                .forEach(l -> rows.put(l.job().id(), l));
        return rows;
    }
}
