package io.fleetjobs.store;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.MachineStatus;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What the reconciler reads to compare desired with actual state, and the few repairs that are
 * not job transitions (machine status, allocation counters). Job and attempt changes go through
 * {@link AttemptReports}, like an agent's reports.
 */
public final class RepairStore {
    private final JdbcClient jdbc;

    public RepairStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** A machine's status and last heartbeat, as last recorded: what the liveness sweep judges. */
    public record MachineHeartbeat(String id, String region, MachineStatus status, String statusReason, Instant lastHeartbeatAt) {
    }

    public List<MachineHeartbeat> liveness() {
        return jdbc.sql("select id, region, status, status_reason, last_heartbeat_at from machines")
                .query((rs, n) -> new MachineHeartbeat(rs.getString(1), rs.getString(2), MachineStatus.valueOf(rs.getString(3)),
                        rs.getString(4), JobRows.instant(rs, 5)))
                .list();
    }

    /**
     * Moves a machine to {@code to} if it is still as read: same status and no heartbeat since
     * (a machine that heartbeats meanwhile keeps its status). A machine an operator cordoned or drained goes back to
     * that, not to READY, when heard again.
     */
    public boolean setStatus(MachineHeartbeat read, MachineStatus to, String reason) {
        return jdbc.sql("""
                        update machines set
                            status = case when :to = 'READY' then coalesce(operator_status, 'READY') else :to end,
                            status_reason = case when :to = 'READY' and operator_status is not null then operator_reason
                                                 else :reason end,
                            capacity_version = capacity_version
                                + case when :to = 'READY' and operator_status is null then 1 else 0 end
                        where id = :id and status = :from
                          and last_heartbeat_at is not distinct from cast(:hb as timestamptz)""")
                .param("to", to.name()).param("reason", reason).param("id", read.id())
                .param("from", read.status().name())
                .param("hb", read.lastHeartbeatAt() == null ? null : JobRows.ts(read.lastHeartbeatAt()))
                .update() == 1;
    }

    /** Changes only the reason shown for a machine's status. */
    public void setReason(String machineId, MachineStatus status, String reason) {
        jdbc.sql("update machines set status_reason = :reason where id = :id and status = :status")
                .param("reason", reason).param("id", machineId).param("status", status.name())
                .update();
    }

    /** An attempt that still holds its allocation, as the sweeps see it. */
    public record HeldAttempt(UUID jobId, int attempt, long epoch, String machineId, AttemptState state, Instant startedAt) {
    }

    /** Attempts leased to an agent that did not start them before their lease expired. */
    public List<HeldAttempt> expiredLeases(Instant now) {
        return jdbc.sql("""
                        select job_id, attempt, lease_epoch, machine_id, state, started_at from attempts
                        where released_at is null and state = 'SCHEDULED' and lease_expires_at < :now""")
                .param("now", JobRows.ts(now))
                .query(LIVE).list();
    }

    private static final RowMapper<HeldAttempt> LIVE = (rs, n) -> new HeldAttempt(
            rs.getObject(1, UUID.class), rs.getInt(2), rs.getLong(3), rs.getString(4), AttemptState.valueOf(rs.getString(5)),
            JobRows.instant(rs, 6));

    /**
     * Releases what ended attempts still hold (none should: an attempt is released when it ends)
     * and sets each machine's counters to the sum over its held attempts where they differ.
     *
     * <p>Call in a transaction: the machine rows are locked first (in id order, as the scheduler
     * locks them), so that the sums are taken after every commit that changed them.
     *
     * @return machines whose counters were wrong
     */
    public int repairAllocations(Instant now) {
        jdbc.sql("select id from machines order by id for no key update").query(String.class).list();
        jdbc.sql("update attempts set released_at = :now where released_at is null and state not in ('SCHEDULED', 'RUNNING')")
                .param("now", JobRows.ts(now)).update();
        new GpuHolds(jdbc).releaseEnded();
        return jdbc.sql("""
                        update machines m set alloc_cpu_millis = coalesce(h.c, 0), alloc_memory_mb = coalesce(h.r, 0),
                            alloc_gpu_count = coalesce(h.g, 0), live_attempts = coalesce(h.n, 0),
                            capacity_version = m.capacity_version + 1
                        from machines m2 left join (
                            select machine_id, sum(cpu_millis) c, sum(memory_mb) r, sum(gpu_count) g, count(*) n
                            from attempts where released_at is null group by machine_id) h on h.machine_id = m2.id
                        where m.id = m2.id and (m.alloc_cpu_millis <> coalesce(h.c, 0)
                           or m.alloc_memory_mb <> coalesce(h.r, 0) or m.alloc_gpu_count <> coalesce(h.g, 0)
                           or m.live_attempts <> coalesce(h.n, 0))""")
                .update();
    }

    /** Whether any machine's counters differ from the sum over its held attempts (a cheap check, no locks). */
    public boolean allocationsDrifted() {
        return jdbc.sql("""
                        select exists (select 1 from machines m left join (
                            select machine_id, sum(cpu_millis) c, sum(memory_mb) r, sum(gpu_count) g, count(*) n
                            from attempts where released_at is null group by machine_id) h on h.machine_id = m.id
                        where m.alloc_cpu_millis <> coalesce(h.c, 0) or m.alloc_memory_mb <> coalesce(h.r, 0)
                           or m.alloc_gpu_count <> coalesce(h.g, 0) or m.live_attempts <> coalesce(h.n, 0))
                        or exists (select 1 from attempts where released_at is null
                                   and state not in ('SCHEDULED', 'RUNNING'))""")
                .query(Boolean.class).single();
    }

    /** A machine's last ended attempts, newest first, and when its agent last joined (null: no such machine). */
    public record Outcomes(Instant joinedAt, List<Ended> ended) {
    }

    /** An ended attempt: its failure reason (null for a success) and when it finished (null: not known). */
    public record Ended(FailureReason reason, Instant finishedAt) {
    }

    /** A machine's last ended attempts, newest first: on {@code attempts_ended_by_machine} (V30). */
    static final String LAST_OUTCOMES = """
            select failure_reason, finished_at from attempts
            where machine_id = :m and state not in ('SCHEDULED', 'RUNNING')
            order by finished_at desc nulls last limit :n""";

    /** READY machines with a platform failure since a time: on {@code attempts_platform_failures} (V30). */
    static final String RECENT_PLATFORM_FAILURES = """
            select distinct a.machine_id from attempts a join machines m on m.id = a.machine_id
            where m.status = 'READY' and a.finished_at > :since
              and a.failure_reason in ('START_FAILED', 'MACHINE_LOST', 'LEASE_EXPIRED')""";

    /** The machine's last {@code n} ended attempts, newest first, with its agent's last join. */
    public Outcomes lastOutcomes(String machineId, int n) {
        Instant joinedAt = jdbc.sql("select joined_at from machines where id = :m").param("m", machineId)
                .query((rs, i) -> JobRows.instant(rs, 1)).optional().orElse(null);
        List<Ended> ended = jdbc.sql(LAST_OUTCOMES)
                .param("m", machineId).param("n", n)
                .query((rs, i) -> new Ended(rs.getString(1) == null ? null : FailureReason.valueOf(rs.getString(1)),
                        JobRows.instant(rs, 2)))
                .list();
        return new Outcomes(joinedAt, ended);
    }

    /** Machines READY that ended at least one attempt with a platform failure since {@code since}. */
    public List<String> machinesWithRecentPlatformFailures(Instant since) {
        return jdbc.sql(RECENT_PLATFORM_FAILURES)
                .param("since", JobRows.ts(since))
                .query(String.class).list();
    }
}
