package io.fleetjobs.store;

import io.fleetjobs.model.MachineStatus;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What changes a machine's status besides its heartbeats and joins: an operator's drain, cordon, uncordon and
 * reset, and the platform's auto-drain. The reconciler's SUSPECT and LOST are not written here but by
 * {@link RepairStore#setStatus}, which moves a machine only if it is still as the reconciler read it.
 */
public final class MachineStatusStore {
    private final JdbcClient jdbc;
    private final InstantSource clock;
    private final MachineStore machines;

    public MachineStatusStore(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.machines = new MachineStore(jdbc, clock);
    }

    /**
     * An operator's reset (its disk was lost): the credential forgotten and the incarnation bumped (a heartbeat of the
     * old one is refused as superseded, by every replica, whatever it remembers), the machine LOST and not heard
     * ({@code reset_at}, V44) until an agent joins afresh.
     */
    public boolean reset(String id, String reason) {
        return jdbc.sql("""
                        update machines set credential_hash = null, incarnation = incarnation + 1, reset_at = :now,
                            status = 'LOST', status_reason = :reason, status_source = 'platform',
                            capacity_version = capacity_version + 1
                        where id = :id""")
                .param("id", id).param("reason", reason).param("now", JobRows.ts(clock.instant()))
                .update() == 1;
    }

    /**
     * An operator's drain, cordon or uncordon: DRAINING and CORDONED are the operator's, held apart from the status
     * until an uncordon (a join keeps them, and a LOST machine heard again returns to them); READY is the platform's
     * again and wakes jobs waiting for room.
     */
    public Optional<MachineRow> operate(String id, MachineStatus status, String reason) {
        jdbc.sql("""
                        update machines set status = :status, status_reason = :reason,
                            status_source = case when :status = 'READY' then 'platform' else 'operator' end,
                            operator_status = case when :status = 'READY' then null else :status end,
                            operator_reason = case when :status = 'READY' then null else :reason end,
                            capacity_version = capacity_version + case when :status = 'READY' then 1 else 0 end
                        where id = :id""")
                .param("id", id).param("status", status.name()).param("reason", reason)
                .update();
        return machines.get(id);
    }

    /** The platform drains a READY machine that keeps failing attempts, noting when (the hourly budget counts it). */
    public boolean autoDrain(String id, String reason) {
        return jdbc.sql("""
                        update machines set status = 'DRAINING', status_reason = :reason, status_source = 'platform',
                            auto_drained_at = :now
                        where id = :id and status = 'READY'""")
                .param("id", id).param("reason", reason).param("now", JobRows.ts(clock.instant()))
                .update() == 1;
    }

    /** Per region: machines not LOST, and those the platform drained since {@code since}. */
    public Map<String, int[]> regionsDrainedSince(Instant since) {
        Map<String, int[]> regions = new HashMap<>();
        jdbc.sql("""
                        select region, count(*) filter (where status <> 'LOST'), count(*) filter (where auto_drained_at > :since)
                        from machines group by region""")
                .param("since", JobRows.ts(since))
                .query(rs -> {
                    regions.put(rs.getString(1), new int[] {rs.getInt(2), rs.getInt(3)});
                });
        return regions;
    }

    /**
     * Changes a machine's status, with a reason a person can read, whatever it was and without the reconciler's
     * guard: for tests that need a machine in a given status (the services change it through the methods above).
     */
    public boolean setStatus(String id, MachineStatus status, String reason) {
        return jdbc.sql("""
                        update machines set status = :status, status_reason = :reason,
                            capacity_version = capacity_version + case when :status = 'READY' then 1 else 0 end
                        where id = :id""")
                .param("id", id).param("status", status.name()).param("reason", reason)
                .update() == 1;
    }
}
