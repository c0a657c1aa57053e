package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.local.KafkaProcess;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The relay lets rows gather after a wake-up ({@code jobs.outbox.gather}): submits one after the other, each a commit
 * that wakes it, are published in a batch or two, not in a transaction (and a request to the broker) each.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OutboxGatherTest {
    private static final int JOBS = 20;
    private static final String SECRET = "gather-test-internal-secret";
    private static final TestDatabases.Database DB = TestDatabases.create();
    private static final KafkaProcess KAFKA = new KafkaProcess(Path.of("target", "kafka-gather-test")).start();

    @LocalServerPort
    int port;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    MeterRegistry meters;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("spring.kafka.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("jobs.bootstrap-admin-token", () -> "gather-admin-token-0123456789");
        registry.add("jobs.internal-secret", () -> SECRET);
        // far longer than the submits take, so that the test does not depend on how fast this machine is
        registry.add("jobs.outbox.gather", () -> "3s");
    }

    @AfterAll
    static void stopKafka() {
        KAFKA.close();
    }

    @Test
    void submitsOneAfterTheOtherArePublishedInABatchOrTwo() {
        UUID adminTenant = jdbc.sql("select id from tenants where name = 'admin'").query(UUID.class).single();
        Api admin = Api.withIdentity(port, SECRET, adminTenant, "admin", CallerIdentity.Role.ADMIN);
        String tenant = admin.post("/api/v1/admin/tenants", "{\"name\":\"gather\"}").field("id");
        Api user = Api.withIdentity(port, SECRET, UUID.fromString(tenant), "gather", CallerIdentity.Role.USER);
        await().atMost(Duration.ofSeconds(30)).until(() -> outboxRows() == 0); // the tenant's event, if any, is out
        double batchesBefore = meters.counter("outbox.batches").count();
        double rowsBefore = meters.counter("outbox.published").count();

        for (int i = 0; i < JOBS; i++) {
            var r = user.post("/api/v1/jobs", """
                    {"name": "g-%d", "resources": {"cpu": 1, "memoryMb": 64}, "execution": {"command": ["true"]}}"""
                    .formatted(i));
            assertThat(r.status()).isEqualTo(201);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> outboxRows() == 0
                && meters.counter("outbox.published").count() - rowsBefore >= 2 * JOBS);

        assertThat(meters.counter("outbox.published").count() - rowsBefore)
                .as("each job's two events (submitted, queued)").isEqualTo(2.0 * JOBS);
        assertThat(meters.counter("outbox.batches").count() - batchesBefore)
                .as("%d submits, each a commit that woke the relay, published together", JOBS)
                .isLessThanOrEqualTo(2.0);
    }

    /** Events not yet published: history rows above the relay's cursor. */
    private long outboxRows() {
        return jdbc.sql("""
                select count(*) from job_history
                where position > (select position from event_relay) and event_id is not null""")
                .query(Long.class).single();
    }
}
