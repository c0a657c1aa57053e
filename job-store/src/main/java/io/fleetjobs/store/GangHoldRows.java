package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The room due gangs hold, shared by the scheduler's replicas ({@code gang_holds}, V42): each replica counts it taken
 * for every job but the gang's, so that what another replica claimed after the gang cannot take it.
 */
public final class GangHoldRows {
    /** A replica's amounts a gang holds on a machine, until {@code until}. */
    public record Held(UUID jobId, String machineId, Amounts amounts, Instant until) {
    }

    private final JdbcClient jdbc;

    public GangHoldRows(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * What the gangs a plan looked at hold now: their rows are replaced by {@code held} (none for a gang placed, or
     * not holding); rows that lapsed a minute ago go too.
     */
    public void replace(Collection<UUID> gangs, List<Held> held, Instant now) {
        if (!gangs.isEmpty()) {
            jdbc.sql("delete from gang_holds where job_id = any(:gangs) or held_until < :lapsed")
                    .param("gangs", gangs.toArray(UUID[]::new)).param("lapsed", JobRows.ts(now.minusSeconds(60)))
                    .update();
        }
        for (Held h : held) {
            jdbc.sql("""
                            insert into gang_holds (job_id, machine_id, cpu_millis, memory_mb, gpu_count, held_until)
                            values (:j, :m, :cpu, :mem, :gpu, :until)
                            on conflict (job_id, machine_id) do update set held_until = excluded.held_until""")
                    .param("j", h.jobId()).param("m", h.machineId()).param("cpu", h.amounts().cpuMillis())
                    .param("mem", h.amounts().memoryMb()).param("gpu", h.amounts().gpus())
                    .param("until", JobRows.ts(h.until())).update();
        }
    }

    /** The holds that have not lapsed at {@code now}. */
    public List<Held> current(Instant now) {
        return jdbc.sql("""
                        select job_id, machine_id, cpu_millis, memory_mb, gpu_count, held_until from gang_holds
                        where held_until > :now""")
                .param("now", JobRows.ts(now))
                .query((rs, n) -> new Held(rs.getObject(1, UUID.class), rs.getString(2),
                        new Amounts(rs.getLong(3), rs.getLong(4), rs.getInt(5)), JobRows.instant(rs, 6)))
                .list();
    }
}
