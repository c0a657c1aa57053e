package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.HeartbeatCadence;
import io.fleetjobs.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The cadence in force, on a real PostgreSQL: a change remembers the lease it replaced, and the longest lease an
 * agent may hold stays the replaced one until every process under it is surely gone.
 */
class CadenceStoreTest {
    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
    private final DataSource ds = TestDatabases.create().dataSource(2);
    private final AtomicReference<Instant> now = new AtomicReference<>(T0);
    private final CadenceStore store = new CadenceStore(JdbcClient.create(ds), now::get);

    private static HeartbeatCadence cadence(long intervalSeconds, long leaseSeconds) {
        return new HeartbeatCadence(Duration.ofSeconds(intervalSeconds), Duration.ofSeconds(leaseSeconds));
    }

    @Test
    void aChangeKeepsTheReplacedLeaseLongestUntilItsProcessesAreSurelyGone() {
        assertThat(store.current()).isEmpty();
        store.set(cadence(20, 60));
        now.set(T0.plusSeconds(100));
        var row = store.set(cadence(2, 6)); // the fleet shrank
        assertThat(row.cadence()).isEqualTo(cadence(2, 6));
        assertThat(row.previousLeaseTtl()).isEqualTo(Duration.ofSeconds(60));
        assertThat(row.changedAt()).isEqualTo(T0.plusSeconds(100));

        Duration beyond = Duration.ofSeconds(18); // two refreshes, a kill grace, a hold, the margin
        assertThat(row.longestLeaseAt(T0.plusSeconds(100 + 77), beyond)).isEqualTo(Duration.ofSeconds(60));
        assertThat(row.longestLeaseAt(T0.plusSeconds(100 + 78), beyond)).isEqualTo(Duration.ofSeconds(6));

        now.set(T0.plusSeconds(500));
        assertThat(store.set(cadence(2, 6)).changedAt()).as("the same cadence again changes nothing")
                .isEqualTo(T0.plusSeconds(100));
        var grown = store.set(cadence(10, 30));
        assertThat(grown.longestLeaseAt(T0.plusSeconds(501), beyond)).as("a longer lease counts at once")
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theFleetThatHeartbeatsIsEveryMachineNotLost() {
        JdbcClient jdbc = JdbcClient.create(ds);
        for (String[] m : new String[][] {{"a", "READY"}, {"b", "SUSPECT"}, {"c", "LOST"}, {"d", "DRAINING"}}) {
            jdbc.sql("""
                    insert into machines (id, region, status, cpu_millis, memory_mb, gpu_count, joined_at)
                    values (:id, 'eu', :s, 1000, 1024, 0, now())""").param("id", m[0]).param("s", m[1]).update();
        }
        assertThat(store.heartbeatingMachines()).isEqualTo(3);
    }
}
