package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.local.KafkaProcess;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.store.Inbox;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Json;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TestDatabases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Postgres is the truth, Kafka only carries it: with the broker down the API keeps accepting jobs,
 * their events wait in the history above the relay's cursor and health says Kafka is DOWN; when the broker is back every
 * event arrives, in order per job, and a consumer with an inbox applies each once, even when the
 * records are delivered again.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class OutboxKafkaOutageTest {
    private static final int JOBS = 500;
    private static final String ADMIN_TOKEN = "outage-admin-token-0123456789";
    private static final String SECRET = "outage-test-internal-secret";
    private static final TestDatabases.Database DB = TestDatabases.create();
    private static final KafkaProcess KAFKA = new KafkaProcess(Path.of("target", "kafka-outage-test")).start();

    @LocalServerPort
    int port;
    @Autowired
    JdbcClient jdbc;
    @Autowired
    Inbox inbox;
    @Autowired
    JobStore store;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("spring.kafka.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("jobs.bootstrap-admin-token", () -> ADMIN_TOKEN);
        registry.add("jobs.internal-secret", () -> SECRET);
        registry.add("jobs.outbox.poll-interval", () -> "100ms");
    }

    @AfterAll
    static void stopKafka() {
        KAFKA.close();
    }

    @Test
    void eventsWaitOutAnOutageThenArriveInOrderAndApplyOnce() {
        UUID adminTenant = jdbc.sql("select id from tenants where name = 'admin'").query(UUID.class).single();
        Api admin = Api.withIdentity(port, SECRET, adminTenant, "admin", CallerIdentity.Role.ADMIN);
        String tenant = admin.post("/api/v1/admin/tenants", "{\"name\":\"outage\"}").field("id");
        Api user = Api.withIdentity(port, SECRET, UUID.fromString(tenant), "outage", CallerIdentity.Role.USER);

        KAFKA.stop();
        for (int i = 0; i < JOBS; i++) {
            var r = user.post("/api/v1/jobs", """
                    {"name": "o-%d", "resources": {"cpu": 1, "memoryMb": 64}, "execution": {"command": ["true"]}}"""
                    .formatted(i));
            assertThat(r.status()).as("the API keeps accepting while Kafka is down").isEqualTo(201);
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            var health = admin.get("/actuator/health");
            assertThat(health.json().get("components").get("kafka").get("status").asString()).isEqualTo("DOWN");
        });
        // every event of these jobs waits above the relay's cursor (SUBMITTED and QUEUED: admitted with the submit)
        Set<UUID> expected = new HashSet<>(jdbc.sql("""
                select h.event_id from job_history h join jobs j on j.id = h.job_id
                where j.tenant_id = cast(:t as uuid) and h.position > (select position from event_relay)""")
                .param("t", tenant).query(UUID.class).list());
        assertThat(expected).hasSize(2 * JOBS);

        KAFKA.start();
        await().atMost(Duration.ofSeconds(120)).until(() ->
                count("select count(*) from jobs where state = 'QUEUED'") == JOBS
                        && count("""
                        select count(*) from job_history
                        where position > (select position from event_relay) and event_id is not null""") == 0);
        assertThat(admin.get("/actuator/health").json().get("components").get("kafka").get("status").asString())
                .isEqualTo("UP");


        // first delivery, then the same records again (no offsets were committed), plus explicit duplicates
        List<JobEvent> first = consumeAll("inbox-test", expected);
        List<JobEvent> second = consumeAll("inbox-test", expected);
        List<JobEvent> deliveries = new ArrayList<>(first);
        deliveries.addAll(second);
        deliveries.addAll(first.subList(0, 50));
        jdbc.sql("create table test_effects (event_id uuid not null, job_id uuid not null)").update();
        for (JobEvent e : deliveries) {
            store.inTransaction(() -> {
                if (inbox.firstTime("test-consumer", e.eventId())) {
                    jdbc.sql("insert into test_effects values (:e, :j)").param("e", e.eventId()).param("j", e.jobId()).update();
                }
                return null;
            });
        }
        assertThat(count("select count(*) from test_effects")).isEqualTo(expected.size());
        assertThat(count("select count(distinct event_id) from test_effects")).isEqualTo(expected.size());

        // in order per job: each job's events arrive with rising versions
        Map<UUID, Long> lastVersion = new HashMap<>();
        for (JobEvent e : first) {
            Long previous = lastVersion.put(e.jobId(), e.jobVersion());
            if (previous != null) {
                assertThat(e.jobVersion()).as("events of job %s in order", e.jobId()).isGreaterThanOrEqualTo(previous);
            }
        }
    }

    /** Reads jobs.events from the start until every expected event has been seen once. */
    private static List<JobEvent> consumeAll(String group, Set<UUID> expected) {
        List<JobEvent> records = new ArrayList<>();
        Set<UUID> seen = new HashSet<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
            consumer.subscribe(List.of(JobEvent.TOPIC));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    JobEvent e = Json.read(record.value(), JobEvent.class);
                    assertThat(record.key()).isEqualTo(e.jobId().toString());
                    records.add(e);
                    seen.add(e.eventId());
                }
                return seen.containsAll(expected);
            });
        }
        return records;
    }

    private long count(String sql) {
        return jdbc.sql(sql).query(Long.class).single();
    }
}
