package io.fleetjobs.store;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.Ids;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The only door through which job rows change. Each change is a guarded update (the state and
 * version the caller read must still be there) plus a history row plus an outbox row, in one
 * transaction: the caller's when there is one, else a transaction of its own.
 *
 * <p>A guarded update that finds nothing means another writer won. That is a normal outcome:
 * {@link #transition} returns empty, and the caller re-reads and decides again.
 */
public final class JobStore {
    /** A job's columns but its spec (what {@link #job} reads besides it). */
    static final String COLUMNS_BUT_SPEC = """
            id, tenant_id, state, state_reason, version, attempt, user_failures, infra_failures,
            machine_id, exit_code, failure_reason, cancel_requested, not_before, created_at, updated_at, finished_at""";
    static final String COLUMNS = "spec, " + COLUMNS_BUT_SPEC;

    private final JdbcClient jdbc;
    private final TransactionTemplate tx;
    private final InstantSource clock;
    private final Outbox outbox;
    private final MeterRegistry meters;
    private final Runnable eventsCommitted;

    public JobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock, MeterRegistry meters) {
        this(jdbc, transactions, clock, meters, () -> { });
    }

    /**
     * @param eventsCommitted called after each commit that wrote outbox rows (e.g. to wake the relay
     *     at once instead of at its next poll)
     */
    public JobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock, MeterRegistry meters,
            Runnable eventsCommitted) {
        this.jdbc = jdbc;
        this.tx = new TransactionTemplate(transactions);
        this.clock = clock;
        this.outbox = new Outbox(jdbc, clock);
        this.meters = meters == null ? new SimpleMeterRegistry() : meters;
        this.eventsCommitted = eventsCommitted;
    }

    public InstantSource clock() {
        return clock;
    }

    /** Runs {@code work} in a transaction (joining the caller's, if any). */
    public <T> T inTransaction(Supplier<T> work) {
        return tx.execute(status -> work.get());
    }

    // ---- submit ---------------------------------------------------------------------------------

    private static final String SUBMITTED_REASON = "awaiting admission";

    /**
     * Writes a new job SUBMITTED with its first history row and event, for admission to move on. With an
     * idempotency key, a second submit with the same key returns the first job (same spec) or a conflict
     * (another spec), also when both race: the unique key makes the loser wait for the winner's commit.
     */
    public Submission submit(UUID tenantId, JobSpec spec, String idempotencyKey) {
        return submit(tenantId, spec, idempotencyKey, false);
    }

    /**
     * Like {@link #submit(UUID, JobSpec, String)}; with {@code admit}, the job is admitted in the same
     * transaction: written QUEUED (version 2) with both history rows and both events (SUBMITTED, then
     * QUEUED), as if admission had moved it at once, without the round trip through the outbox, Kafka
     * and a second transaction that rewrites the row.
     */
    public Submission submit(UUID tenantId, JobSpec spec, String idempotencyKey, boolean admit) {
        Transition admission = Transition.admit();
        JobState state = admit ? admission.to : JobState.SUBMITTED;
        String reason = admit ? admission.reason : SUBMITTED_REASON;
        long version = admit ? 2 : 1;
        return inTransaction(() -> {
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS); // as PostgreSQL keeps it
            UUID id = Ids.newId(clock);
            byte[] hash = Json.specHash(spec);
            List<UUID> inserted = jdbc.sql("""
                            insert into jobs (id, tenant_id, name, queue, priority, spec, state, state_reason, version,
                                              not_before, cpu_millis, memory_mb, gpu_count, gpu_type, region,
                                              idempotency_key, request_hash, created_at, updated_at)
                            values (:id, :tenant, :name, :queue, :priority, cast(:spec as jsonb), :state,
                                    :reason, :version, :now, :cpu, :mem, :gpus, :gpuType, :region,
                                    :key, :hash, :now, :now)
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
                    .param("now", ts(now))
                    .param("cpu", spec.resources().cpuMillis())
                    .param("mem", spec.resources().memoryMb())
                    .param("gpus", spec.resources().gpuCount())
                    .param("gpuType", spec.resources().gpuType())
                    .param("region", spec.placement().region())
                    .param("key", idempotencyKey)
                    .param("hash", hash)
                    .query(UUID.class).list();
            if (inserted.isEmpty()) {
                var existing = jdbc.sql("select " + COLUMNS + ", request_hash from jobs where tenant_id = :t and idempotency_key = :k")
                        .param("t", tenantId).param("k", idempotencyKey)
                        .query((rs, n) -> Map.entry(JOB.mapRow(rs, n), rs.getBytes("request_hash"))).single();
                return Arrays.equals(existing.getValue(), hash)
                        ? new Submission.Accepted(existing.getKey(), false)
                        : new Submission.KeyConflict(existing.getKey());
            }
            // the row as inserted, without reading it back
            JobRecord job = new JobRecord(id, tenantId, spec, state, reason, version, 0, 0, 0, null,
                    null, null, false, now, now, now, null);
            if (admit) {
                Written admitted = new Written(id, tenantId, 2, JobState.SUBMITTED, state, reason, now, Map.of());
                insertRecords(List.of(new Written(id, tenantId, 1, null, JobState.SUBMITTED, SUBMITTED_REASON, now, Map.of()),
                        admitted));
                afterCommitCount(List.of(admitted));
            } else {
                record(job, null, JobEventType.STATE_CHANGED, Map.of(), job.updatedAt());
            }
            afterCommit(() -> meters.counter("jobs.submitted").increment());
            return new Submission.Accepted(job, true);
        });
    }

    // ---- reads ----------------------------------------------------------------------------------

    public Optional<JobRecord> get(UUID id) {
        return jdbc.sql("select " + COLUMNS + " from jobs where id = :id").param("id", id).query(JOB).optional();
    }

    /** A job as its tenant sees it: another tenant's job does not exist. */
    public Optional<JobRecord> find(UUID tenantId, UUID id) {
        return jdbc.sql("select " + COLUMNS + " from jobs where id = :id and tenant_id = :t")
                .param("id", id).param("t", tenantId).query(JOB).optional();
    }

    /**
     * A tenant's jobs, newest first, after {@code after} (exclusive; null for the first page). Served
     * by the one index {@code (tenant_id, state, id desc)}: without a state, as the merge of one short
     * range scan per state (at most {@code limit} rows each), so that no second index on
     * {@code (tenant_id, id)} has to be written at every change of every job.
     */
    public List<JobRecord> list(UUID tenantId, JobState state, UUID after, int limit) {
        String range = " from jobs where tenant_id = :t and state = %s" + (after != null ? " and id < :after" : "")
                + " order by id desc limit :limit";
        String sql;
        if (state != null) {
            sql = "select " + COLUMNS + range.formatted(":state");
        } else {
            sql = Arrays.stream(JobState.values())
                    .map(s -> "(select " + COLUMNS + range.formatted("'" + s.name() + "'") + ")")
                    .collect(Collectors.joining(" union all ", "select * from (", ") j order by id desc limit :limit"));
        }
        JdbcClient.StatementSpec q = jdbc.sql(sql).param("t", tenantId).param("limit", limit);
        if (state != null) {
            q = q.param("state", state.name());
        }
        if (after != null) {
            q = q.param("after", after);
        }
        return q.query(JOB).list();
    }

    public List<HistoryEntry> history(UUID jobId) {
        return jdbc.sql("select version, at, from_state, to_state, reason from job_history where job_id = :id order by version")
                .param("id", jobId)
                .query((rs, n) -> new HistoryEntry(rs.getLong(1), instant(rs, 2), state(rs.getString(3)),
                        state(rs.getString(4)), rs.getString(5)))
                .list();
    }

    public List<AttemptRecord> attempts(UUID jobId) {
        return jdbc.sql("""
                        select job_id, attempt, machine_id, state, lease_epoch, scheduled_at, started_at, finished_at,
                               exit_code, failure_reason, gpu_indices
                        from attempts where job_id = :id order by attempt""")
                .param("id", jobId)
                .query((rs, n) -> new AttemptRecord(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3),
                        AttemptState.valueOf(rs.getString(4)), rs.getLong(5), instant(rs, 6), instant(rs, 7),
                        instant(rs, 8), (Integer) rs.getObject(9), failure(rs.getString(10)),
                        MachineStore.gpuIndices(rs.getArray(11))))
                .list();
    }

    /** The captured output of an attempt: the last bytes of stdout and stderr, as its agent reported them. */
    public record Logs(String stdout, String stderr) {
    }

    public Optional<Logs> logs(UUID jobId, int attempt) {
        return jdbc.sql("select log_tail_stdout, log_tail_stderr from attempts where job_id = :id and attempt = :n")
                .param("id", jobId).param("n", attempt)
                .query((rs, n) -> new Logs(rs.getString(1) == null ? "" : rs.getString(1),
                        rs.getString(2) == null ? "" : rs.getString(2)))
                .optional();
    }

    /** Jobs left in SUBMITTED since before {@code before}: admission's safety net. */
    public List<JobRecord> stuckSubmitted(Instant before, int limit) {
        return jdbc.sql("select " + COLUMNS + " from jobs where state = 'SUBMITTED' and updated_at < :before order by updated_at limit :limit")
                .param("before", ts(before)).param("limit", limit).query(JOB).list();
    }

    // ---- changes --------------------------------------------------------------------------------

    /**
     * Moves {@code current} along {@code change} if nobody changed it since it was read.
     *
     * @return the job after the change, or empty when another writer changed it first
     * @throws io.fleetjobs.model.IllegalTransitionException when the move is not in the table (a bug)
     */
    public Optional<JobRecord> transition(JobRecord current, Transition change) {
        current.state().checkMoveTo(change.to);
        return inTransaction(() -> {
            Instant now = clock.instant();
            Optional<JobRecord> after = jdbc.sql("""
                            update jobs set
                                state = :to, state_reason = :reason, version = version + 1, updated_at = :now,
                                finished_at = case when :terminal then :now else finished_at end,
                                attempt = coalesce(:attempt, attempt),
                                machine_id = case when :setMachine then cast(:machine as text) else machine_id end,
                                exit_code = case when :setOutcome then cast(:exitCode as integer) else exit_code end,
                                failure_reason = case when :setOutcome then cast(:failure as text) else failure_reason end,
                                not_before = coalesce(cast(:notBefore as timestamptz), not_before),
                                user_failures = user_failures + :userFailures,
                                infra_failures = infra_failures + :infraFailures
                            where id = :id and state = :from and version = :version
                            returning """ + " " + COLUMNS)
                    .param("to", change.to.name())
                    .param("reason", change.reason)
                    .param("now", ts(now))
                    .param("terminal", change.to.isTerminal())
                    .param("attempt", change.attempt)
                    .param("setMachine", change.setMachine)
                    .param("machine", change.machineId)
                    .param("setOutcome", change.setOutcome)
                    .param("exitCode", change.exitCode)
                    .param("failure", change.failureReason == null ? null : change.failureReason.name())
                    .param("notBefore", change.notBefore == null ? null : ts(change.notBefore))
                    .param("userFailures", change.userFailures)
                    .param("infraFailures", change.infraFailures)
                    .param("id", current.id())
                    .param("from", current.state().name())
                    .param("version", current.version())
                    .query(JOB).optional();
            after.ifPresent(job -> {
                record(job, current.state(), JobEventType.STATE_CHANGED, change.data,
                        change.at == null ? job.updatedAt() : change.at);
                String from = current.state().name();
                String to = change.to.name();
                afterCommit(() -> Counter.builder("jobs.transitions").tag("from", from).tag("to", to)
                        .register(meters).increment());
            });
            return after;
        });
    }

    /**
     * Admits those of these jobs that are still SUBMITTED, in one transaction and a few statements.
     * Idempotent: a job that has moved on (admitted already, canceled) is left alone.
     *
     * @return how many were admitted
     */
    public int admitAll(java.util.Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        return inTransaction(() -> {
            List<JobRecord> submitted = jdbc.sql("select " + COLUMNS
                            + " from jobs where id = any(cast(:ids as uuid[])) and state = 'SUBMITTED' order by id for update")
                    .param("ids", ids.stream().map(UUID::toString).distinct().toArray(String[]::new))
                    .query(JOB).list();
            transitionLocked(submitted.stream().map(job -> new Change(job, Transition.admit())).toList());
            return submitted.size();
        });
    }

    /** A job as read under its row lock, and where it goes. */
    record Change(JobRecord current, Transition transition) {
    }

    /**
     * Many transitions in one statement, with their history rows and events, for jobs whose rows
     * this transaction has locked (so that nobody can have changed them since they were read).
     * At most one change per job: a job that moves twice needs a second call, from the row the first returned.
     *
     * @return the jobs after their change (in no particular order), with the spec of {@link Change#current}
     */
    List<JobRecord> transitionLocked(List<Change> changes) {
        if (changes.isEmpty()) {
            return List.of();
        }
        int n = changes.size();
        String[] ids = new String[n];
        String[] froms = new String[n];
        Long[] versions = new Long[n];
        String[] tos = new String[n];
        String[] reasons = new String[n];
        Boolean[] terminal = new Boolean[n];
        Integer[] attempts = new Integer[n];
        Boolean[] setMachine = new Boolean[n];
        String[] machines = new String[n];
        Boolean[] setOutcome = new Boolean[n];
        Integer[] exitCodes = new Integer[n];
        String[] failures = new String[n];
        String[] notBefore = new String[n];
        Integer[] userFailures = new Integer[n];
        Integer[] infraFailures = new Integer[n];
        Map<UUID, Change> byId = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Change c = changes.get(i);
            Transition t = c.transition();
            c.current().state().checkMoveTo(t.to);
            if (byId.put(c.current().id(), c) != null) {
                throw new IllegalArgumentException("two changes of job " + c.current().id() + " in one statement");
            }
            ids[i] = c.current().id().toString();
            froms[i] = c.current().state().name();
            versions[i] = c.current().version();
            tos[i] = t.to.name();
            reasons[i] = t.reason;
            terminal[i] = t.to.isTerminal();
            attempts[i] = t.attempt;
            setMachine[i] = t.setMachine;
            machines[i] = t.machineId;
            setOutcome[i] = t.setOutcome;
            exitCodes[i] = t.exitCode;
            failures[i] = t.failureReason == null ? null : t.failureReason.name();
            notBefore[i] = t.notBefore == null ? null : t.notBefore.toString();
            userFailures[i] = t.userFailures;
            infraFailures[i] = t.infraFailures;
        }
        Instant now = clock.instant();
        List<JobRecord> after = jdbc.sql("""
                        update jobs j set
                            state = d.to_state, state_reason = d.reason, version = j.version + 1, updated_at = :now,
                            finished_at = case when d.terminal then :now else j.finished_at end,
                            attempt = coalesce(d.attempt, j.attempt),
                            machine_id = case when d.set_machine then d.machine else j.machine_id end,
                            exit_code = case when d.set_outcome then d.exit_code else j.exit_code end,
                            failure_reason = case when d.set_outcome then d.failure else j.failure_reason end,
                            not_before = coalesce(d.not_before, j.not_before),
                            user_failures = j.user_failures + d.user_failures,
                            infra_failures = j.infra_failures + d.infra_failures
                        from unnest(cast(:ids as uuid[]), cast(:froms as text[]), cast(:versions as bigint[]),
                                    cast(:tos as text[]), cast(:reasons as text[]), cast(:terminal as boolean[]),
                                    cast(:attempts as int[]), cast(:setMachine as boolean[]), cast(:machines as text[]),
                                    cast(:setOutcome as boolean[]), cast(:exitCodes as int[]), cast(:failures as text[]),
                                    cast(cast(:notBefore as text[]) as timestamptz[]), cast(:userFailures as int[]),
                                    cast(:infraFailures as int[]))
                             as d(id, from_state, version, to_state, reason, terminal, attempt, set_machine, machine,
                                  set_outcome, exit_code, failure, not_before, user_failures, infra_failures)
                        where j.id = d.id and j.state = d.from_state and j.version = d.version
                        returning """ + " " + prefixed("j", COLUMNS_BUT_SPEC))
                .param("ids", ids).param("froms", froms).param("versions", versions).param("tos", tos)
                .param("reasons", reasons).param("terminal", terminal).param("attempts", attempts)
                .param("setMachine", setMachine).param("machines", machines).param("setOutcome", setOutcome)
                .param("exitCodes", exitCodes).param("failures", failures).param("notBefore", notBefore)
                .param("userFailures", userFailures).param("infraFailures", infraFailures).param("now", ts(now))
                // a spec never changes: the one of the row as locked, not read back and parsed again
                .query((rs, row) -> job(rs, byId.get(rs.getObject("id", UUID.class)).current().spec())).list();
        if (after.size() != n) {
            throw new IllegalStateException("changed " + after.size() + " of " + n + " locked jobs: a job changed under its lock");
        }
        List<Written> written = new ArrayList<>(n);
        for (JobRecord job : after) {
            Change c = byId.get(job.id());
            Instant at = c.transition().at == null ? job.updatedAt() : c.transition().at;
            written.add(new Written(job.id(), job.tenantId(), job.version(), c.current().state(), job.state(),
                    job.stateReason(), at, Map.copyOf(c.transition().data)));
        }
        recordAll(written);
        return after;
    }

    private static String prefixed(String alias, String columns) {
        return String.join(", ", Arrays.stream(columns.split(",")).map(c -> alias + "." + c.strip()).toList());
    }

    /**
     * Marks a job on a machine as to be canceled; its state stays until the agent confirms. The
     * mark is a change of its own (version, history row with the same state, event).
     *
     * @return the job after the change, or empty when another writer changed it first
     */
    public Optional<JobRecord> requestCancel(JobRecord current) {
        if (!current.state().isOnMachine()) {
            throw new IllegalStateException("cancel requests are for jobs on machines, not " + current.state());
        }
        return inTransaction(() -> {
            Optional<JobRecord> after = jdbc.sql("""
                            update jobs set cancel_requested = true, version = version + 1, updated_at = :now,
                                state_reason = 'cancel requested; waiting for the agent to stop the attempt'
                            where id = :id and state = :from and version = :version
                            returning """ + " " + COLUMNS)
                    .param("now", ts(clock.instant()))
                    .param("id", current.id())
                    .param("from", current.state().name())
                    .param("version", current.version())
                    .query(JOB).optional();
            after.ifPresent(job -> record(job, current.state(), JobEventType.CANCEL_REQUESTED,
                    job.machineId() == null ? Map.of() : Map.of("machineId", job.machineId()), job.updatedAt()));
            return after;
        });
    }

    /**
     * The history row and the event of a change just written, which happened {@code at}; {@code from} is
     * null for the first.
     */
    private void record(JobRecord job, JobState from, JobEventType type, Map<String, String> data, Instant at) {
        jdbc.sql("""
                        insert into job_history (job_id, version, from_state, to_state, reason, at)
                        values (:id, :version, :from, :to, :reason, :at)""")
                .param("id", job.id())
                .param("version", job.version())
                .param("from", from == null ? null : from.name())
                .param("to", job.state().name())
                .param("reason", job.stateReason())
                .param("at", ts(at))
                .update();
        UUID eventId = Ids.newId(clock);
        JobEvent event = new JobEvent(eventId, JobEvent.SCHEMA_VERSION, type, job.id(), job.tenantId(),
                job.version(), at, from, job.state(), job.stateReason(), data);
        outbox.append(JobEvent.TOPIC, job.id().toString(), eventId, event);
        afterCommit(eventsCommitted);
    }

    /**
     * A change already written to a job row, whose history row and event are still to be written;
     * {@code at}: when it happened, for both (the row's {@code updated_at}, but for a move written late).
     */
    record Written(UUID jobId, UUID tenantId, long version, JobState from, JobState to, String reason, Instant at,
            Map<String, String> data) {
    }

    /**
     * The history rows and events of many changes at once, in the given order (one statement each
     * for history and outbox). Call in the transaction that wrote the rows.
     */
    void recordAll(List<Written> changes) {
        insertRecords(changes);
        afterCommitCount(changes);
    }

    /** The history rows and events of these changes, without the after-commit metrics and wake-ups. */
    void insertRecords(List<Written> changes) {
        if (changes.isEmpty()) {
            return;
        }
        int n = changes.size();
        String[] ids = new String[n];
        Long[] versions = new Long[n];
        String[] froms = new String[n];
        String[] tos = new String[n];
        String[] reasons = new String[n];
        String[] ats = new String[n];
        String[] eventIds = new String[n];
        Integer[] shards = new Integer[n];
        String[] payloads = new String[n];
        for (int i = 0; i < n; i++) {
            Written w = changes.get(i);
            UUID eventId = Ids.newId(clock);
            ids[i] = w.jobId().toString();
            versions[i] = w.version();
            froms[i] = w.from() == null ? null : w.from().name();
            tos[i] = w.to().name();
            reasons[i] = w.reason();
            ats[i] = w.at().toString();
            eventIds[i] = eventId.toString();
            shards[i] = Outbox.shardOf(ids[i]);
            payloads[i] = Json.write(new JobEvent(eventId, JobEvent.SCHEMA_VERSION, JobEventType.STATE_CHANGED,
                    w.jobId(), w.tenantId(), w.version(), w.at(), w.from(), w.to(), w.reason(), w.data()));
        }
        var now = ts(clock.instant()); // the outbox rows' created_at: when written, which the relay's lag is measured from
        jdbc.sql("""
                        insert into job_history (job_id, version, from_state, to_state, reason, at)
                        select cast(d.id as uuid), d.version, d.f, d.t, d.r, d.at
                        from unnest(cast(:ids as text[]), cast(:versions as bigint[]), cast(:froms as text[]),
                                    cast(:tos as text[]), cast(:reasons as text[]), cast(cast(:ats as text[]) as timestamptz[]))
                             as d(id, version, f, t, r, at)""")
                .param("ids", ids).param("versions", versions).param("froms", froms).param("tos", tos)
                .param("reasons", reasons).param("ats", ats)
                .update();
        jdbc.sql("""
                        insert into outbox (event_id, topic, key, shard, payload, created_at)
                        select cast(d.e as uuid), :topic, d.k, d.s, d.p, :now
                        from unnest(cast(:e as text[]), cast(:k as text[]), cast(:s as int[]), cast(:p as text[]))
                             with ordinality as d(e, k, s, p, i)
                        order by d.i""")
                .param("e", eventIds).param("k", ids).param("s", shards).param("p", payloads)
                .param("topic", JobEvent.TOPIC).param("now", now)
                .update();
    }

    /** Counts these changes and wakes the outbox relay once the transaction commits. */
    void afterCommitCount(List<Written> changes) {
        if (changes.isEmpty()) {
            return;
        }
        Map<List<String>, Long> counts = new java.util.HashMap<>();
        changes.forEach(w -> counts.merge(List.of(String.valueOf(w.from()), w.to().name()), 1L, Long::sum));
        afterCommit(() -> counts.forEach((fromTo, count) -> Counter.builder("jobs.transitions")
                .tag("from", fromTo.get(0)).tag("to", fromTo.get(1)).register(meters).increment(count)));
        afterCommit(eventsCommitted);
    }

    private static void afterCommit(Runnable action) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    action.run();
                }
            });
        } else {
            action.run();
        }
    }

    // ---- mapping --------------------------------------------------------------------------------

    static final RowMapper<JobRecord> JOB = (rs, n) -> job(rs, Json.read(rs.getString("spec"), JobSpec.class));

    /** The job on the current row of {@code rs}, with the spec given (null where the spec was not read). */
    static JobRecord job(ResultSet rs, JobSpec spec) throws SQLException {
        return new JobRecord(
                rs.getObject("id", UUID.class),
                rs.getObject("tenant_id", UUID.class),
                spec,
                JobState.valueOf(rs.getString("state")),
                rs.getString("state_reason"),
                rs.getLong("version"),
                rs.getInt("attempt"),
                rs.getInt("user_failures"),
                rs.getInt("infra_failures"),
                rs.getString("machine_id"),
                (Integer) rs.getObject("exit_code"),
                failure(rs.getString("failure_reason")),
                rs.getBoolean("cancel_requested"),
                instant(rs, "not_before"),
                instant(rs, "created_at"),
                instant(rs, "updated_at"),
                instant(rs, "finished_at"));
    }

    static OffsetDateTime ts(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    private static JobState state(String s) {
        return s == null ? null : JobState.valueOf(s);
    }

    private static FailureReason failure(String s) {
        return s == null ? null : FailureReason.valueOf(s);
    }
}
