package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.migrations.Migrate;
import io.fleetjobs.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * One replica of a gang per machine, held by the database (V27); since V34 its index covers gangs' attempts only: an
 * attempt of a job of one replica is unique by its key already, and writes no entry there.
 */
class OneReplicaPerMachineTest {
    private HikariDataSource ds;
    private JdbcClient jdbc;

    @BeforeEach
    void setUp() {
        ds = TestDatabases.create().dataSource(2);
        Migrate.apply(ds);
        jdbc = JdbcClient.create(ds);
        jdbc.sql("""
                insert into tenants (id, name, created_at) values ('00000000-0000-0000-0000-000000000001', 't', now());
                insert into machines (id, region, labels, cpu_millis, memory_mb, gpu_count, status, joined_at)
                values ('m1', 'eu', '{}', 8000, 8192, 0, 'READY', now()), ('m2', 'eu', '{}', 8000, 8192, 0, 'READY', now());
                insert into jobs (id, tenant_id, name, queue, priority, spec, state, version, not_before, cpu_millis,
                                  memory_mb, gpu_count, created_at, updated_at, replicas)
                values ('00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-000000000001', 'gang', 'default',
                        500, '{}', 'SCHEDULED', 3, now(), 1000, 64, 0, now(), now(), 2),
                       ('00000000-0000-0000-0000-00000000000b', '00000000-0000-0000-0000-000000000001', 'one', 'default',
                        500, '{}', 'SCHEDULED', 3, now(), 1000, 64, 0, now(), now(), 1);""").update();
    }

    @AfterEach
    void tearDown() {
        ds.close();
    }

    @Test
    void aGangsTwoReplicasAreRefusedOneMachine() {
        attempt("a", 0, 2, "m1");
        assertThatThrownBy(() -> attempt("a", 1, 2, "m1")).isInstanceOf(DataIntegrityViolationException.class)
                .hasMessageContaining("attempts_one_replica_per_machine");
        attempt("a", 1, 2, "m2");
        assertThat(jdbc.sql("select count(*) from attempts").query(Long.class).single()).isEqualTo(2);
    }

    @Test
    void anAttemptOfOneReplicaIsUniqueByItsKeyAndOutsideTheIndex() {
        attempt("b", 0, 1, "m1");
        assertThatThrownBy(() -> attempt("b", 0, 1, "m1")).isInstanceOf(DataIntegrityViolationException.class)
                .hasMessageContaining("attempts_pkey");
        assertThat(jdbc.sql("select pg_get_indexdef('attempts_one_replica_per_machine'::regclass)").query(String.class)
                .single()).endsWith("WHERE (world_size > 1)");
    }

    private void attempt(String job, int replica, int worldSize, String machine) {
        jdbc.sql("""
                        insert into attempts (job_id, attempt, machine_id, state, scheduled_at, cpu_millis, memory_mb,
                                              gpu_count, replica, world_size, lease_epoch)
                        values (cast(:job as uuid), 1, :m, 'SCHEDULED', now(), 1000, 64, 0, :replica, :world, nextval('lease_epochs'))""")
                .param("job", "00000000-0000-0000-0000-00000000000" + job).param("m", machine)
                .param("replica", replica).param("world", worldSize).update();
    }
}
