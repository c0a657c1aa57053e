package io.fleetjobs.jobservice.config;

import io.fleetjobs.jobservice.outbox.OutboxSignal;
import io.fleetjobs.jobservice.webhooks.HostResolver;
import io.fleetjobs.store.ApiKeyStore;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.WebhookStore;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.InstantSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;

/** The stores as job-service builds them; the others come from job-store's StoreAutoConfiguration. */
@Configuration(proxyBeanMethods = false)
class StoreConfig {
    @Bean
    WebhookStore webhookStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock) {
        return new WebhookStore(jdbc, transactions, clock);
    }

    @Bean
    ApiKeyStore apiKeyStore(JdbcClient jdbc) {
        return new ApiKeyStore(jdbc);
    }

    /** How webhook hosts are resolved: the system's resolver (a test may answer otherwise). */
    @Bean
    @ConditionalOnMissingBean
    HostResolver hostResolver() {
        return HostResolver.SYSTEM;
    }

    @Bean
    OutboxSignal outboxSignal() {
        return new OutboxSignal();
    }

    /** Wakes the outbox relay after each commit that wrote events, rather than at its next poll. */
    @Bean
    JobStore jobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock,
            MeterRegistry meters, OutboxSignal signal) {
        return new JobStore(jdbc, transactions, clock, meters, signal::wake);
    }
}
