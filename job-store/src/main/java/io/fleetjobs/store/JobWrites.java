package io.fleetjobs.store;

import io.fleetjobs.model.Ids;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one door through which job rows change: a batch of {@link Transition}s as one guarded update
 * (the state and version each caller read must still be there), then one history row and one event
 * per change. Admission, placement, reports, cancel and the reconciler all come through here, and the
 * retention's deletion of finished jobs ({@link #forgetFinished}). A submit inserts its new row itself
 * ({@link JobSubmissions}) and writes its history rows through {@link #record}.
 *
 * <p>A change whose row has moved on is missing from {@link Applied#jobs()}: another writer won, which
 * is a normal outcome. Call inside a transaction.
 */
final class JobWrites {
    private final JdbcClient jdbc;
    private final InstantSource clock;
    private final MeterRegistry meters;
    private final Runnable eventsCommitted;

    JobWrites(JdbcClient jdbc, InstantSource clock, MeterRegistry meters, Runnable eventsCommitted) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.meters = meters;
        this.eventsCommitted = eventsCommitted;
    }

    /** A job as its writer read it (id, state, version; the spec, which never changes, may be null) and its change. */
    record Change(UUID jobId, JobState from, long version, JobSpec spec, Transition transition) {
        static Change of(JobRecord current, Transition transition) {
            return new Change(current.id(), current.state(), current.version(), current.spec(), transition);
        }
    }

    /**
     * A change written to a job row, for its history row and event; {@code at}: when it happened (the
     * row's {@code updated_at}, but for a move written late); {@code from} is null for a job's first row.
     */
    record Written(UUID jobId, UUID tenantId, long version, JobState from, JobState to, String reason, Instant at,
            JobEventType type, Map<String, String> data) {
        /** Moves are counted by from and to; a job's first row and a cancel mark are not moves. */
        boolean isMove() {
            return from != null && type == JobEventType.STATE_CHANGED;
        }
    }

    /** What a write did: the jobs after their change (in no particular order), and what was recorded of them. */
    record Applied(List<JobRecord> jobs, List<Written> written) {
        static final Applied NONE = new Applied(List.of(), List.of());
    }

    /** {@link #write} now, and the metrics and the relay's wake-up after commit. */
    Applied apply(List<Change> changes) {
        Applied applied = write(changes, clock.instant());
        afterCommit(applied.written());
        return applied;
    }

    /** {@link #apply}, for rows this transaction has locked: each change must find its row as read. */
    Applied applyLocked(List<Change> changes) {
        Applied applied = apply(changes);
        requireAll(changes, applied);
        return applied;
    }

    static void requireAll(List<Change> changes, Applied applied) {
        if (applied.jobs().size() != changes.size()) {
            throw new IllegalStateException("changed " + applied.jobs().size() + " of " + changes.size()
                    + " locked jobs: a job changed under its lock");
        }
    }

    /**
     * The guarded update of every change in one statement, then their history rows and events; nothing
     * after commit (a caller that may roll back to a savepoint calls {@link #afterCommit} once it keeps them).
     * At most one change per job: a job that moves twice needs a second call, from the row the first returned, or
     * the second move written {@link Transition#after} the first (one update of the row).
     *
     * @param now the rows' {@code updated_at}
     * @throws io.fleetjobs.model.IllegalTransitionException when a move is not in the table (a bug)
     */
    Applied write(List<Change> changes, Instant now) {
        if (changes.isEmpty()) {
            return Applied.NONE;
        }
        GuardedUpdate update = new GuardedUpdate(changes.size());
        Map<UUID, Change> byId = new HashMap<>();
        for (Change c : changes) {
            Transition t = c.transition();
            if (t.before != null) {
                c.from().checkMoveTo(t.before.to);
                t.before.to.checkMoveTo(t.to);
            } else if (!t.cancelRequest) {
                c.from().checkMoveTo(t.to);
            }
            if (byId.put(c.jobId(), c) != null) {
                throw new IllegalArgumentException("two changes of job " + c.jobId() + " in one statement");
            }
            update.add(c);
        }
        // a spec never changes: the one of the row as read, not read back and parsed again
        List<JobRecord> after = update.run(jdbc, now,
                (rs, row) -> JobRows.job(rs, byId.get(rs.getObject("id", UUID.class)).spec()));
        List<Written> written = new ArrayList<>(after.size());
        for (JobRecord job : after) {
            Transition t = byId.get(job.id()).transition();
            JobState from = byId.get(job.id()).from();
            if (t.before != null) { // the move before this one, written with it: its own history row and event
                Transition step = t.before;
                written.add(new Written(job.id(), job.tenantId(), job.version() - 1, from, step.to, step.reason,
                        step.at == null ? job.updatedAt() : step.at, step.eventType(),
                        Collections.unmodifiableMap(new LinkedHashMap<>(step.data))));
                from = step.to;
            }
            Map<String, String> data = new LinkedHashMap<>(t.data); // may hold nulls, which Map.copyOf refuses
            if (t.nextAttempt) {
                data.put("attempt", Integer.toString(job.attempt()));
                data.put("machineId", job.machineId());
            }
            written.add(new Written(job.id(), job.tenantId(), job.version(), from, job.state(),
                    job.stateReason(), t.at == null ? job.updatedAt() : t.at, t.eventType(), Collections.unmodifiableMap(data)));
        }
        record(written);
        return new Applied(after, written);
    }

    /**
     * The history rows of changes written, in the given order, in one statement whatever their number. Each row is
     * also its change's event, since V33 (the relay reads them through {@link OutboxStore}): its id, type and data
     * beside the facts the history keeps.
     * A row's position is taken as it is inserted, after its job's row was written in the same transaction, which is
     * what the relay's rule for gaps relies on ({@link EventGaps}).
     */
    void record(List<Written> changes) {
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
        String[] types = new String[n];
        String[] data = new String[n];
        for (int i = 0; i < n; i++) {
            Written w = changes.get(i);
            ids[i] = w.jobId().toString();
            versions[i] = w.version();
            froms[i] = w.from() == null ? null : w.from().name();
            tos[i] = w.to().name();
            reasons[i] = w.reason();
            ats[i] = w.at().toString();
            eventIds[i] = Ids.newId(clock).toString();
            types[i] = w.type().name();
            data[i] = w.data() == null || w.data().isEmpty() ? null : Json.write(w.data());
        }
        jdbc.sql("""
                        insert into job_history (job_id, version, from_state, to_state, reason, at, event_id, event_type,
                                                 event_data)
                        select cast(d.id as uuid), d.version, d.f, d.t, d.r, d.at, cast(d.e as uuid), d.type, d.data
                        from unnest(cast(:ids as text[]), cast(:versions as bigint[]), cast(:froms as text[]),
                                    cast(:tos as text[]), cast(:reasons as text[]), cast(cast(:ats as text[]) as timestamptz[]),
                                    cast(:e as text[]), cast(:types as text[]), cast(:data as text[]))
                             with ordinality as d(id, version, f, t, r, at, e, type, data, i)
                        order by d.i""")
                .param("ids", ids).param("versions", versions).param("froms", froms).param("tos", tos)
                .param("reasons", reasons).param("ats", ats).param("e", eventIds).param("types", types)
                .param("data", data)
                .update();
    }

    /** What one {@link #forgetFinished} deleted: jobs, and their attempts, history rows and GPU holds. */
    record Forgotten(int jobs, int attempts, int history, int gpuHolds) {
    }

    /**
     * Deletes up to {@code limit} finished jobs (SUCCEEDED, FAILED, CANCELED) that finished before {@code before},
     * oldest first, with everything that refers to them, in one statement: the only deletion of job rows, and not
     * a change (no history row, no event: a job that is gone has nothing more to say). A job is taken whole or
     * not at all, so what remains has no orphans and no gaps in its history; a job whose attempt still holds its
     * allocation (not yet released by the reconciler) waits, so machines' counters stay the sum over held
     * attempts. Rows another transaction holds are skipped ({@code skip locked}): replicas delete side by side.
     * A job whose history holds an event the relay has not yet published stays until it has. Call inside a
     * transaction.
     */
    Forgotten forgetFinished(Instant before, int limit) {
        return jdbc.sql("""
                        with doomed as (
                            select j.id from jobs j
                            where j.state in ('SUCCEEDED', 'FAILED', 'CANCELED') and j.finished_at < :before
                              and not exists (select 1 from attempts a where a.job_id = j.id and a.released_at is null)
                              and not exists (select 1 from job_history h where h.job_id = j.id
                                              and h.position > (select position from event_relay where id = 1))
                            order by j.finished_at
                            limit :limit
                            for update of j skip locked
                        ), holds as (
                            delete from gpu_holds g using doomed d where g.job_id = d.id returning 1
                        ), tries as (
                            delete from attempts a using doomed d where a.job_id = d.id returning 1
                        ), history as (
                            delete from job_history h using doomed d where h.job_id = d.id returning 1
                        ), gone as (
                            delete from jobs j using doomed d where j.id = d.id returning 1
                        )
                        select (select count(*) from gone), (select count(*) from tries), (select count(*) from history),
                               (select count(*) from holds)""")
                .param("before", JobRows.ts(before)).param("limit", limit)
                .query((rs, n) -> new Forgotten(rs.getInt(1), rs.getInt(2), rs.getInt(3), rs.getInt(4)))
                .single();
    }

    /** Once the transaction commits: counts the moves among {@code written} and wakes the outbox relay. */
    void afterCommit(List<Written> written) {
        if (written.isEmpty()) {
            return;
        }
        Map<List<String>, Long> counts = new HashMap<>();
        written.stream().filter(Written::isMove)
                .forEach(w -> counts.merge(List.of(w.from().name(), w.to().name()), 1L, Long::sum));
        if (!counts.isEmpty()) {
            afterCommit(() -> counts.forEach((fromTo, count) -> Counter.builder("jobs.transitions")
                    .tag("from", fromTo.get(0)).tag("to", fromTo.get(1)).register(meters).increment(count)));
        }
        afterCommit(eventsCommitted);
    }

    static void afterCommit(Runnable action) {
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
}
