package io.fleetjobs.jobservice;

import io.fleetjobs.jobservice.webhooks.HostResolver;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.store.Transition;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.TestDatabases;
import io.fleetjobs.testsupport.TestKafka;
import java.net.InetAddress;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * job-service as it runs: a real server on a random port, a real PostgreSQL with the real
 * migrations, a real Kafka broker. Subclasses share one application context. Tests call it as the
 * gateway does, with an identity signed with the internal secret ({@link Api#withIdentity}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@org.springframework.context.annotation.Import(JobServiceTestBase.Names.class)
public abstract class JobServiceTestBase {
    /**
     * Names under example.com resolve to a public address, without a DNS (this machine has none); so does
     * {@link #REBINDING}, which the system's resolver answers with loopback, as a DNS rebinding attack would: one
     * answer to a check, another to a connection. Others resolve as usual.
     */
    @org.springframework.boot.test.context.TestConfiguration(proxyBeanMethods = false)
    static class Names {
        @org.springframework.context.annotation.Bean
        HostResolver hostResolver() {
            return host -> host.endsWith(".example.com") || host.equals(REBINDING)
                    ? List.of(InetAddress.getByAddress(host, new byte[] {93, (byte) 184, (byte) 216, 34}))
                    : HostResolver.SYSTEM.resolve(host);
        }
    }

    /** A name the webhooks' resolver answers with a public address and the system's with loopback. */
    protected static final String REBINDING = "localhost";
    protected static final String ADMIN_TOKEN = "test-admin-token-0123456789";
    protected static final String SECRET = "job-service-test-internal-secret";
    protected static final TestDatabases.Database DB = TestDatabases.create();
    protected static final TestKafka KAFKA = new TestKafka(JobEvent.TOPIC).start();

    @LocalServerPort
    protected int port;
    /** The actuator's own port (prometheus, metrics, info); the main port has health only. */
    @LocalManagementPort
    protected int managementPort;
    protected Api admin;
    @Autowired
    protected TenantStore tenants;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::url);
        registry.add("spring.datasource.username", DB::user);
        registry.add("spring.datasource.password", DB::password);
        registry.add("spring.kafka.bootstrap-servers", KAFKA::bootstrapServers);
        registry.add("jobs.bootstrap-admin-token", () -> ADMIN_TOKEN);
        registry.add("jobs.internal-secret", () -> SECRET);
        registry.add("jobs.outbox.poll-interval", () -> "100ms");
        // webhooks tried again soon, and given up after four tries (WebhooksApiTest)
        registry.add("jobs.webhooks.retry-base", () -> "50ms");
        registry.add("jobs.webhooks.dispatch-interval", () -> "50ms");
        registry.add("jobs.webhooks.tries", () -> "4");
        // a receiver that holds a request holds it longer than any test waits (WebhooksApiTest)
        registry.add("jobs.webhooks.request-timeout", () -> "120s");
        // a caller's activity is read once in this long: longer than a test's twenty calls take (JobsApiTest)
        registry.add("jobs.activity.cache-ttl", () -> "10s");
    }

    @BeforeEach
    void adminClient() {
        // the bootstrap admin key made tenant "admin"; the gateway would vouch for it so
        admin = Api.withIdentity(port, SECRET, tenants.byName("admin").orElseThrow().id(), "admin", CallerIdentity.Role.ADMIN);
    }

    /** A new tenant, and a client calling as a user of it. */
    protected Api newTenant(String name) {
        var created = admin.post("/api/v1/admin/tenants", "{\"name\":\"" + name + "\",\"weight\":1}");
        if (created.status() != 201) {
            throw new IllegalStateException("tenant: " + created);
        }
        return Api.withIdentity(port, SECRET, UUID.fromString(created.field("id")), name, CallerIdentity.Role.USER);
    }

    /** Moves a job to {@code next} through the store's write door, as the scheduler and the reports would. */
    protected static void move(JobStore store, UUID id, JobState next) {
        var job = store.get(id).orElseThrow();
        Transition t = Transition.to(next, "test");
        if (next == JobState.SCHEDULED) {
            t.onAttempt(1, null);
        }
        if (store.transition(job, t).isEmpty()) {
            throw new AssertionError("job " + id + " did not move from " + job.state() + " to " + next);
        }
    }

    protected static String spec(String name) {
        return """
                {"name": "%s", "resources": {"cpu": 0.5, "memoryMb": 256},
                 "execution": {"command": ["sh", "-c", "echo hi"]}}""".formatted(name);
    }
}
