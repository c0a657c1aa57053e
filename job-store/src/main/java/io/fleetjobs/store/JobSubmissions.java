package io.fleetjobs.store;

import io.fleetjobs.model.Ids;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/** New jobs: the insert with its idempotency key, and admission (SUBMITTED to QUEUED). Call in a transaction. */
final class JobSubmissions {
    static final String SUBMITTED_REASON = "awaiting admission";

    private final JdbcClient jdbc;
    private final InstantSource clock;
    private final JobWrites writes;
    private final MeterRegistry meters;

    JobSubmissions(JdbcClient jdbc, InstantSource clock, JobWrites writes, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.writes = writes;
        this.meters = meters;
    }

    /** The states a job is live in, which the quota on live jobs counts: all but the terminal ones. */
    private static final String[] LIVE = Arrays.stream(JobState.values()).filter(s -> !s.isTerminal())
            .map(JobState::name).toArray(String[]::new);

    /** See {@link JobStore#submit(UUID, JobSpec, String, boolean)}. */
    Submission submit(UUID tenantId, JobSpec spec, String idempotencyKey, boolean admit) {
        Submission refused = overQuota(tenantId, spec.priority(), idempotencyKey);
        if (refused != null) {
            return refused;
        }
        Transition admission = Transition.admit();
        JobState state = admit ? admission.to : JobState.SUBMITTED;
        String reason = admit ? admission.reason : SUBMITTED_REASON;
        long version = admit ? 2 : 1;
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS); // as PostgreSQL keeps it
        UUID id = Ids.newId(clock);
        byte[] hash = Json.specHash(spec);
        List<UUID> inserted = jdbc.sql("""
                        insert into jobs (id, tenant_id, name, queue, priority, spec, state, state_reason, version,
                                          not_before, cpu_millis, memory_mb, gpu_count, gpu_type, region,
                                          idempotency_key, request_hash, created_at, updated_at, replicas, gang_scope)
                        values (:id, :tenant, :name, :queue, :priority, cast(:spec as jsonb), :state,
                                :reason, :version, :now, :cpu, :mem, :gpus, :gpuType, :region,
                                :key, :hash, :now, :now, :replicas, :gangScope)
                        on conflict (tenant_id, idempotency_key) where idempotency_key is not null do nothing
                        returning id""")
                .param("id", id)
                .param("tenant", tenantId)
                .param("name", spec.name())
                .param("queue", spec.queue())
                .param("priority", spec.priority())
                .param("spec", Json.write(spec))
                .param("state", state.name())
                .param("reason", reason)
                .param("version", version)
                .param("now", JobRows.ts(now))
                .param("cpu", spec.resources().cpuMillis())
                .param("mem", spec.resources().memoryMb())
                .param("gpus", spec.resources().gpuCount())
                .param("gpuType", spec.resources().gpuType())
                .param("region", spec.placement().region())
                .param("replicas", spec.replicas())
                .param("gangScope", spec.replicas() > 1 ? spec.placement().gangScope() : null)
                .param("key", idempotencyKey)
                .param("hash", hash)
                .query(UUID.class).list();
        if (inserted.isEmpty()) {
            return existing(tenantId, idempotencyKey, hash).orElseThrow();
        }
        // the row as inserted, without reading it back
        JobRecord job = new JobRecord(id, tenantId, spec, state, reason, version, 0, 0, 0, null,
                null, null, false, now, now, now, null);
        List<JobWrites.Written> written = new ArrayList<>(2);
        written.add(new JobWrites.Written(id, tenantId, 1, null, JobState.SUBMITTED, SUBMITTED_REASON, now,
                JobEventType.STATE_CHANGED, Map.of()));
        if (admit) { // as if admission had moved it at once: both history rows, both events
            written.add(new JobWrites.Written(id, tenantId, 2, JobState.SUBMITTED, state, reason, now,
                    JobEventType.STATE_CHANGED, Map.of()));
        }
        writes.record(written);
        writes.afterCommit(written);
        JobWrites.afterCommit(() -> meters.counter("jobs.submitted").increment());
        return new Submission.Accepted(job, true);
    }

    /**
     * A refusal when the job's priority is over the tenant's highest, or the tenant has a quota on live jobs and is at
     * it; null when the submit may go on. Idempotency comes first: a key already used answers as it always does (the
     * same job, or a conflict), at the quota too.
     *
     * <p>Race-safe by the tenant row's lock: every submit of a tenant with a quota takes it ({@code for no key
     * update}) and holds it to its commit, so concurrent
     * submits count one after the other, each seeing the jobs the one before inserted. Counting rather than a
     * counter column kept by the write door: a counter would add a write of one hot tenant row to every job's
     * end (placements and reports by the thousand a second), while the count costs only the submits of tenants
     * with a quota, an index range of at most the quota's size (jobs_by_tenant_state); tenants without a quota
     * pay one primary-key read and take no lock.
     */
    private Submission overQuota(UUID tenantId, int priority, String idempotencyKey) {
        Limits limits = limits(tenantId, false);
        if (limits.maxPriority() != null && priority > limits.maxPriority()) {
            return keyUsed(tenantId, idempotencyKey) ? null : new Submission.PriorityOverQuota(limits.maxPriority());
        }
        if (limits.maxLiveJobs() == null) {
            return null;
        }
        Integer max = limits(tenantId, true).maxLiveJobs();
        if (max == null) {
            return null; // lifted meanwhile
        }
        if (keyUsed(tenantId, idempotencyKey)) {
            return null; // the insert finds it and answers as for any repeated key
        }
        long live = jdbc.sql("select count(*) from jobs where tenant_id = :t and state = any(cast(:live as text[]))")
                .param("t", tenantId).param("live", LIVE).query(Long.class).single();
        return live >= max ? new Submission.OverQuota(live, max) : null;
    }

    private boolean keyUsed(UUID tenantId, String idempotencyKey) {
        return idempotencyKey != null && jdbc.sql("select id from jobs where tenant_id = :t and idempotency_key = :k")
                .param("t", tenantId).param("k", idempotencyKey).query(UUID.class).optional().isPresent();
    }

    /** A tenant's limits on a submit; both null for a tenant without them (or none of that id). */
    private record Limits(Integer maxLiveJobs, Integer maxPriority) {
    }

    private Limits limits(UUID tenantId, boolean lock) {
        List<Limits> limits = jdbc.sql("select quota_max_live_jobs, quota_max_priority from tenants where id = :t"
                        + (lock ? " for no key update" : ""))
                .param("t", tenantId).query((rs, n) -> new Limits((Integer) rs.getObject(1), (Integer) rs.getObject(2)))
                .list();
        return limits.isEmpty() ? new Limits(null, null) : limits.getFirst();
    }

    private Optional<Submission> existing(UUID tenantId, String idempotencyKey, byte[] hash) {
        return jdbc.sql("select " + JobRows.COLUMNS + ", request_hash from jobs where tenant_id = :t and idempotency_key = :k")
                .param("t", tenantId).param("k", idempotencyKey)
                .query((rs, n) -> Map.entry(JobRows.JOB.mapRow(rs, n), rs.getBytes("request_hash"))).optional()
                .map(e -> Arrays.equals(e.getValue(), hash)
                        ? new Submission.Accepted(e.getKey(), false)
                        : new Submission.KeyConflict(e.getKey()));
    }

    /** See {@link JobStore#admitAll}. */
    int admitAll(Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        List<JobRecord> submitted = jdbc.sql("select " + JobRows.COLUMNS
                        + " from jobs where id = any(cast(:ids as uuid[])) and state = 'SUBMITTED' order by id for update")
                .param("ids", ids.stream().map(UUID::toString).distinct().toArray(String[]::new))
                .query(JobRows.JOB).list();
        writes.applyLocked(submitted.stream().map(job -> JobWrites.Change.of(job, Transition.admit())).toList());
        return submitted.size();
    }
}
