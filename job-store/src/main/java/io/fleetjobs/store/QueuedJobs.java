package io.fleetjobs.store;

import io.fleetjobs.model.PlacementStrategy;
import io.fleetjobs.model.UnplacedKind;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * QUEUED jobs as the scheduler finds them: claimed for a plan ({@code FOR UPDATE SKIP LOCKED}, in the claim's order:
 * priority, then work the platform lost ({@link Transition#ahead}), then id), claimed again, marked with why they stay
 * queued, and woken when the fleet or a tenant's quota changes. Not state changes: those go through {@link JobWrites}.
 */
final class QueuedJobs {
    private final JdbcClient jdbc;
    private final InstantSource clock;

    QueuedJobs(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /**
     * Locks up to {@code limit} QUEUED jobs whose time has come, in the claim's order; skips rows other replicas hold.
     * Those whose "fits nowhere" backoff has ended come first ({@link #claimDueNeverFitting}), then the others.
     */
    List<ClaimedJob> claim(int limit) {
        List<ClaimedJob> claimed = claimDueNeverFitting(limit);
        if (claimed.size() < limit) {
            claimed.addAll(claimWhere("", limit - claimed.size(), null, false, null));
        }
        return claimed;
    }

    /**
     * As {@link #claim(int)}, but only jobs after the one of {@code priority}, {@code ahead} and {@code id} in the
     * claim's order: the scheduler passes over the jobs it found no room for without writing to them. Range scans of
     * the claim index (the rest of that priority's part, then the rest of that priority, then the lower priorities),
     * so that the jobs passed over cost nothing to skip.
     */
    List<ClaimedJob> claimAfter(int limit, int priority, boolean ahead, UUID id) {
        List<ClaimedJob> claimed = claimDueNeverFitting(limit);
        List<String> rest = new ArrayList<>();
        rest.add("and priority = :priority and requeued_ahead = :ahead and id > :id");
        if (ahead) {
            rest.add("and priority = :priority and not requeued_ahead");
        }
        rest.add("and priority < :priority");
        for (String condition : rest) {
            if (claimed.size() < limit) {
                claimed.addAll(claimWhere(condition, limit - claimed.size(), priority, ahead, id));
            }
        }
        return claimed;
    }

    private List<ClaimedJob> claimWhere(String condition, int limit, Integer afterPriority, boolean ahead, UUID afterId) {
        var statement = jdbc.sql(claimSql(condition)).param("now", JobRows.ts(clock.instant())).param("limit", limit);
        if (afterId != null) {
            statement = statement.param("priority", afterPriority).param("ahead", ahead).param("id", afterId);
        }
        return statement.query(CLAIMED).list();
    }

    /**
     * The claim: due QUEUED jobs in priority order, {@code condition} added, but for those waiting out a "fits
     * nowhere" backoff, which are not in its index ({@code jobs_claim}, V36). A job deferred otherwise (a retry's
     * backoff) is passed over on its entry there, which holds not_before (V29), without reading its row.
     */
    static String claimSql(String condition) {
        return """
                select %s from jobs
                where state = 'QUEUED' and unplaced_kind is distinct from 'CAN_NEVER_FIT' and not_before <= :now %s
                order by priority desc, requeued_ahead desc, id
                limit :limit
                for update skip locked""".formatted(CLAIM_COLUMNS, condition);
    }

    /**
     * Locks jobs whose "fits nowhere" backoff has ended ({@link UnplacedKind#CAN_NEVER_FIT}), the
     * longest due first (those due at the same instant, as a machine joining leaves them, in the claim's order), up
     * to half of {@code limit} (at least one): a backlog of such jobs woken at once shares the claims with the others
     * instead of holding them up. They have an index of their own ({@code jobs_never_fit_due}, by not_before, then in
     * the claim's order), so that no claim walks the entries of those still waiting, however many. Each one claimed
     * is written when its cycle commits (placed, deferred again, or its kind changed), which takes it out of the due
     * range.
     */
    private List<ClaimedJob> claimDueNeverFitting(int limit) {
        return new ArrayList<>(jdbc.sql(DUE_NEVER_FITTING_SQL)
                .param("now", JobRows.ts(clock.instant())).param("limit", Math.max(1, limit / 2))
                .query(CLAIMED).list());
    }

    private static final String CLAIM_COLUMNS = """
            id, tenant_id, version, priority, cpu_millis, memory_mb, gpu_count, gpu_type, region, created_at,
            spec->'placement'->'labels' as labels, spec->'placement'->>'strategy' as strategy,
            (spec->'placement'->>'requireIsolation' = 'true' or spec->'execution'->>'network' = 'none') as require_isolation,
            replicas, gang_scope, requeued_ahead,
            unplaced_kind, state_reason""";

    static final String DUE_NEVER_FITTING_SQL = """
            select %s from jobs
            where state = 'QUEUED' and unplaced_kind = 'CAN_NEVER_FIT' and not_before <= :now
            order by not_before, priority desc, requeued_ahead desc, id
            limit :limit
            for update skip locked""".formatted(CLAIM_COLUMNS);

    @SuppressWarnings("unchecked")
    private static final RowMapper<ClaimedJob> CLAIMED = (rs, n) -> {
        String labels = rs.getString("labels");
        String strategy = rs.getString("strategy");
        return new ClaimedJob(rs.getObject("id", UUID.class), rs.getObject("tenant_id", UUID.class), rs.getLong("version"),
                rs.getInt("priority"), rs.getLong("cpu_millis"), rs.getLong("memory_mb"), rs.getInt("gpu_count"),
                rs.getString("gpu_type"), rs.getString("region"),
                labels == null || labels.equals("{}") ? Map.of() : Json.read(labels, Map.class),
                strategy == null ? null : PlacementStrategy.valueOf(strategy),
                JobRows.instant(rs, "created_at"), rs.getBoolean("require_isolation"), rs.getInt("replicas"),
                rs.getString("gang_scope"), rs.getBoolean("requeued_ahead"), shown(rs.getString("unplaced_kind"),
                        rs.getString("state_reason")));
    };

    private static PlacementStore.Shown shown(String kind, String reason) {
        return new PlacementStore.Shown(kind == null ? null : UnplacedKind.valueOf(kind), reason);
    }

    /** Locks these jobs again, if they are still QUEUED and no other replica holds them. */
    List<ClaimedJob> reclaim(List<UUID> ids) {
        return jdbc.sql("""
                        select %s from jobs
                        where id = any(cast(:ids as uuid[])) and state = 'QUEUED'
                        order by priority desc, requeued_ahead desc, id
                        for update skip locked""".formatted(CLAIM_COLUMNS))
                .param("ids", ids.stream().map(UUID::toString).toArray(String[]::new))
                .query(CLAIMED).list();
    }

    /**
     * Writes why each job stays QUEUED, and its backoff where it has one: not a state change (no
     * version, history or event). A job left without a backoff whose reason says what the one it shows
     * says, but for its numbers, is not written at all ({@link PlacementStore.Deferral#writes}): each write would
     * be a new version of the row and of its index entries (315 µs of the server a job in W1), for counts that move
     * with every placement. Deferrals whose row was claimed are filtered here, before they are sent (the claim read
     * what the row shows, and holds its lock); the statement compares the others the same way. The reason shown keeps
     * the counts of when it was written, and changes when what holds the job does (another filter, another kind).
     */
    void defer(List<PlacementStore.Deferral> all) {
        List<PlacementStore.Deferral> deferrals = all.stream().filter(PlacementStore.Deferral::writes).toList();
        if (deferrals.isEmpty()) {
            return;
        }
        String[] ids = deferrals.stream().map(d -> d.jobId().toString()).toArray(String[]::new);
        String[] reasons = deferrals.stream().map(PlacementStore.Deferral::reason).toArray(String[]::new);
        String[] kinds = deferrals.stream().map(d -> d.kind().name()).toArray(String[]::new);
        String[] notBefore = deferrals.stream().map(d -> d.notBefore() == null ? null : d.notBefore().toString())
                .toArray(String[]::new);
        jdbc.sql("""
                        update jobs j set state_reason = d.reason, unplaced_kind = d.kind,
                            not_before = coalesce(d.nb, j.not_before)
                        from unnest(cast(:ids as uuid[]), cast(:reasons as text[]), cast(:kinds as text[]),
                                    cast(cast(:nb as text[]) as timestamptz[]))
                             as d(id, reason, kind, nb)
                        where j.id = d.id and j.state = 'QUEUED'
                          and (d.nb is not null or j.unplaced_kind is distinct from d.kind
                               or regexp_replace(j.state_reason, '[0-9]+', '#', 'g')
                                  is distinct from regexp_replace(d.reason, '[0-9]+', '#', 'g'))""")
                .param("ids", ids).param("reasons", reasons).param("kinds", kinds).param("nb", notBefore)
                .update();
    }

    /**
     * Lets jobs waiting out a "fits nowhere" backoff ({@link UnplacedKind#CAN_NEVER_FIT}) be claimed at once:
     * call it when the fleet changed (a machine joined), which may give them a machine; a retry's backoff
     * is left to run. Reads the queued jobs to find them, so the caller does it at most once per interval.
     *
     * @return how many were woken (at most {@code limit}, highest priority first)
     */
    int wakeUnplaceable(int limit) {
        return jdbc.sql("""
                        update jobs set not_before = :now where id in (
                            select id from jobs
                            where state = 'QUEUED' and not_before > :now and unplaced_kind = 'CAN_NEVER_FIT'
                            order by priority desc, requeued_ahead desc, id limit :limit for update skip locked)""")
                .param("now", JobRows.ts(clock.instant())).param("limit", limit)
                .update();
    }

    /**
     * Lets the jobs of {@code tenantId} waiting out a "fits nowhere" backoff be claimed at once: call it when the
     * tenant's quota changed, since a job larger than its quota can never fit under it. Their verdict is forgotten
     * too ({@code unplaced_kind}): a scheduler that judges one on the quota it read just before the change finds it
     * "never fits" for the first time again, and looks again after the shorter backoff, not the longer one.
     *
     * @return how many were woken
     */
    int wakeUnplaceableOf(UUID tenantId) {
        return jdbc.sql("""
                        update jobs set not_before = :now, unplaced_kind = null
                        where tenant_id = :tenant and state = 'QUEUED' and not_before > :now
                          and unplaced_kind = 'CAN_NEVER_FIT'""")
                .param("now", JobRows.ts(clock.instant())).param("tenant", tenantId)
                .update();
    }
}
