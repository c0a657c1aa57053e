package io.fleetjobs.jobservice;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TestDatabases;
import io.fleetjobs.testsupport.TestKafka;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * job-service as it runs: a real server on a random port, a real PostgreSQL with the real
 * migrations, a real Kafka broker. Subclasses share one application context.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
public abstract class JobServiceTestBase {
    protected static final String ADMIN_TOKEN = "test-admin-token-0123456789";
    protected static final TestDatabases.Database DB = TestDatabases.create();
    protected static final TestKafka KAFKA = new TestKafka(JobEvent.TOPIC).start();

    @LocalServerPort
    protected int port;
    protected Api admin;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("spring.kafka.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("jobs.bootstrap-admin-token", () -> ADMIN_TOKEN);
        registry.add("jobs.outbox.poll-interval", () -> "100ms");
    }

    @BeforeEach
    void adminClient() {
        admin = new Api(port, ADMIN_TOKEN);
    }

    /** A new tenant and a user key of it. */
    protected Api newTenant(String name) {
        var created = admin.post("/api/v1/admin/tenants", "{\"name\":\"" + name + "\",\"weight\":1}");
        if (created.status() != 201) {
            throw new IllegalStateException("tenant: " + created);
        }
        var key = admin.post("/api/v1/admin/tenants/" + name + "/api-keys", "{}");
        return new Api(port, key.field("key"));
    }

    protected static String spec(String name) {
        return """
                {"name": "%s", "resources": {"cpu": 0.5, "memoryMb": 256},
                 "execution": {"command": ["sh", "-c", "echo hi"]}}""".formatted(name);
    }
}
