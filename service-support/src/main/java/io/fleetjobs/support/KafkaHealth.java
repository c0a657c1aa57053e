package io.fleetjobs.support;

import java.util.HashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * Kafka as health sees it: UP when the cluster answers within two seconds. DOWN does not stop a
 * service (Postgres is the truth; events wait in the outbox, wake-ups fall back to periodic
 * cycles), so readiness does not include it. Registered as {@code kafka} by {@link SupportAutoConfiguration}.
 */
public class KafkaHealth implements HealthIndicator, AutoCloseable {
    private final KafkaAdmin admin;
    private AdminClient client;

    public KafkaHealth(KafkaAdmin admin) {
        this.admin = admin;
    }

    @Override
    public Health health() {
        try {
            var nodes = client().describeCluster(new DescribeClusterOptions().timeoutMs(2_000)).nodes()
                    .get(3, TimeUnit.SECONDS);
            return Health.up().withDetail("brokers", nodes.size()).build();
        } catch (Exception e) {
            return Health.down().withDetail("error", String.valueOf(e.getMessage())).build();
        }
    }

    private synchronized AdminClient client() {
        if (client == null) {
            var config = new HashMap<>(admin.getConfigurationProperties());
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2_000);
            client = AdminClient.create(config);
        }
        return client;
    }

    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
        }
    }
}
