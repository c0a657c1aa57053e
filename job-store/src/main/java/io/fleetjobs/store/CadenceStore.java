package io.fleetjobs.store;

import io.fleetjobs.model.HeartbeatCadence;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The heartbeat cadence in force (one row, V22), and the fleet's size it follows. */
public final class CadenceStore {
    /**
     * The cadence in force and the lease it replaced at {@code changedAt}.
     */
    public record Row(HeartbeatCadence cadence, Duration previousLeaseTtl, Instant changedAt) {
        /**
         * The longest lease an agent may still hold, or still be fencing by, at {@code now}: the previous one while
         * a process under a lease it granted may still run. {@code beyondLease}: how long after the change a replica
         * may still hand out the previous lease, plus what follows a lease's end before its processes are surely
         * gone (the kill grace, the longest hold, the clock-skew margin).
         */
        public Duration longestLeaseAt(Instant now, Duration beyondLease) {
            Duration current = cadence.leaseTtl();
            boolean previousMayRun = now.isBefore(changedAt.plus(beyondLease).plus(previousLeaseTtl));
            return previousMayRun && previousLeaseTtl.compareTo(current) > 0 ? previousLeaseTtl : current;
        }
    }

    private final JdbcClient jdbc;
    private final InstantSource clock;

    public CadenceStore(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    public Optional<Row> current() {
        return jdbc.sql("select interval_ms, lease_ttl_ms, previous_lease_ttl_ms, changed_at from heartbeat_cadence")
                .query((rs, n) -> new Row(new HeartbeatCadence(Duration.ofMillis(rs.getLong(1)), Duration.ofMillis(rs.getLong(2))),
                        Duration.ofMillis(rs.getLong(3)), JobRows.instant(rs, 4)))
                .optional();
    }

    /** The machines that heartbeat (every one not LOST): what the cadence is sized for. */
    public long heartbeatingMachines() {
        return jdbc.sql("select count(*) from machines where status <> 'LOST'").query(Long.class).single();
    }

    /**
     * Puts {@code cadence} in force, remembering the lease it replaces; a cadence already in force is left as it is
     * (its change time too). @return the row in force after it
     */
    public Row set(HeartbeatCadence cadence) {
        jdbc.sql("""
                        insert into heartbeat_cadence (id, interval_ms, lease_ttl_ms, previous_lease_ttl_ms, changed_at)
                        values (1, :interval, :lease, :lease, :now)
                        on conflict (id) do update set interval_ms = excluded.interval_ms,
                            lease_ttl_ms = excluded.lease_ttl_ms, previous_lease_ttl_ms = heartbeat_cadence.lease_ttl_ms,
                            changed_at = excluded.changed_at
                        where heartbeat_cadence.interval_ms <> excluded.interval_ms
                           or heartbeat_cadence.lease_ttl_ms <> excluded.lease_ttl_ms""")
                .param("interval", cadence.interval().toMillis()).param("lease", cadence.leaseTtl().toMillis())
                .param("now", JobRows.ts(clock.instant())).update();
        return current().orElseThrow();
    }
}
