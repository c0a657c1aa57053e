package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.migrations.Migrate;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.testsupport.TestDatabases;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * V33 on a database of the version before: an event still waiting in {@code outbox} moves onto its history row and
 * the relay's cursor starts before it; an event already published (gone from {@code outbox}) is not published again.
 */
class HistoryIsTheOutboxMigrationTest {

    @Test
    void eventsWaitingInTheOutboxArePublishedFromTheHistoryAndNoneTwice() {
        try (HikariDataSource ds = TestDatabases.create().dataSource(2)) {
            Flyway flyway = Flyway.configure().dataSource(ds).locations(Migrate.LOCATION).cleanDisabled(false).load();
            flyway.clean();
            Flyway.configure().dataSource(ds).locations(Migrate.LOCATION).target("32").load().migrate();
            JdbcClient jdbc = JdbcClient.create(ds);
            jdbc.sql("""
                    insert into tenants (id, name, created_at) values ('00000000-0000-0000-0000-000000000001', 't', now());
                    insert into jobs (id, tenant_id, name, queue, priority, spec, state, version, not_before, cpu_millis,
                                      memory_mb, gpu_count, created_at, updated_at)
                    values ('00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-000000000001', 'a', 'default',
                            500, '{}', 'QUEUED', 2, now(), 1000, 64, 0, now(), now());
                    insert into job_history (job_id, version, from_state, to_state, reason, at) values
                        ('00000000-0000-0000-0000-00000000000a', 1, null, 'SUBMITTED', 'submitted', now()),
                        ('00000000-0000-0000-0000-00000000000a', 2, 'SUBMITTED', 'QUEUED', 'admitted', now());
                    insert into outbox (event_id, topic, key, shard, payload, created_at) values
                        ('00000000-0000-0000-0000-0000000000e2', 'jobs.events', '00000000-0000-0000-0000-00000000000a', 3,
                         '{"at":"2030-01-01T00:00:00Z","data":{"attempt":"1"},"eventId":"00000000-0000-0000-0000-0000000000e2","from":"SUBMITTED","jobId":"00000000-0000-0000-0000-00000000000a","jobVersion":2,"reason":"admitted","schemaVersion":1,"tenantId":"00000000-0000-0000-0000-000000000001","to":"QUEUED","type":"STATE_CHANGED"}',
                         now());""").update();

            Migrate.apply(ds);

            assertThat(jdbc.sql("select count(*) from outbox").query(Long.class).single()).as("moved").isZero();
            long cursor = jdbc.sql("select position from event_relay").query(Long.class).single();
            List<OutboxStore.Event> above = new OutboxStore(jdbc).above(cursor, 100);
            assertThat(above).as("version 1 was published before: it has no event; version 2 waits").hasSize(1);
            JobEvent event = Json.read(above.getFirst().payload(), JobEvent.class);
            assertThat(event.eventId()).hasToString("00000000-0000-0000-0000-0000000000e2");
            assertThat(event.jobVersion()).isEqualTo(2);
            assertThat(event.data()).containsEntry("attempt", "1");
        }
    }
}
