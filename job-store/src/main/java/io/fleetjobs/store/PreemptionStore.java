package io.fleetjobs.store;

import io.fleetjobs.model.Amounts;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What preemption reads and writes: the live attempts a job might preempt, the mark that ends them for it (the
 * agent is then told to kill them, {@code attempts.preempted_by}), and whether a preemptor still waits for its
 * victims to end. The decision itself is the engine's ({@code Preemptions}, scheduler-core).
 */
public final class PreemptionStore {
    private final JdbcClient jdbc;

    public PreemptionStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** A live attempt as preemption sees it; {@code placedAtMillis} orders victims by how recently they started. */
    public record Candidate(UUID jobId, int attempt, String machineId, UUID tenantId, int priority, Amounts held,
                            long placedAtMillis, boolean preemptible) {
    }

    /**
     * The live attempts, not already being preempted, of jobs below {@code priority}, by machine then job. A gang's
     * replicas are never preemptible (gangs neither preempt nor are preempted in this version).
     */
    public List<Candidate> below(int priority) {
        return jdbc.sql("""
                        select a.job_id, a.attempt, a.machine_id, j.tenant_id, j.priority, a.cpu_millis, a.memory_mb,
                               a.gpu_count, (extract(epoch from a.scheduled_at) * 1000)::bigint,
                               coalesce((j.spec->>'preemptible')::boolean, true) and a.world_size = 1
                        from attempts a join jobs j on j.id = a.job_id
                        where a.released_at is null and a.state in ('SCHEDULED', 'RUNNING') and a.preempted_by is null
                          and j.priority < :p
                        order by a.machine_id, a.job_id""")
                .param("p", priority)
                .query((rs, n) -> new Candidate(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3),
                        rs.getObject(4, UUID.class), rs.getInt(5), new Amounts(rs.getLong(6), rs.getLong(7), rs.getInt(8)),
                        rs.getLong(9), rs.getBoolean(10)))
                .list();
    }

    /**
     * Marks the victims as ended for the preemptor, where they are still live and nobody marked them first.
     * @return how many were marked
     */
    public int mark(UUID preemptor, List<Candidate> victims) {
        int marked = 0;
        for (Candidate v : victims) {
            marked += jdbc.sql("""
                            update attempts set preempted_by = :p
                            where job_id = :j and attempt = :n and released_at is null and state in ('SCHEDULED', 'RUNNING')
                              and preempted_by is null""")
                    .param("p", preemptor).param("j", v.jobId()).param("n", v.attempt()).update();
        }
        return marked;
    }

    /** Whether attempts ended for the preemptor still hold their room. */
    public boolean waitingFor(UUID preemptor) {
        return jdbc.sql("select exists (select 1 from attempts where preempted_by = :p and released_at is null)")
                .param("p", preemptor).query(Boolean.class).single();
    }
}
