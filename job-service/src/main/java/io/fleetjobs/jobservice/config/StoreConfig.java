package io.fleetjobs.jobservice.config;

import io.fleetjobs.jobservice.outbox.OutboxSignal;
import io.fleetjobs.store.Inbox;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.OutboxStore;
import io.fleetjobs.store.TenantStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.InstantSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;

@Configuration(proxyBeanMethods = false)
class StoreConfig {
    @Bean
    InstantSource clock() {
        return InstantSource.system();
    }

    @Bean
    OutboxSignal outboxSignal() {
        return new OutboxSignal();
    }

    @Bean
    JobStore jobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock,
            MeterRegistry meters, OutboxSignal signal) {
        return new JobStore(jdbc, transactions, clock, meters, signal::wake);
    }

    @Bean
    TenantStore tenantStore(JdbcClient jdbc, InstantSource clock) {
        return new TenantStore(jdbc, clock);
    }

    @Bean
    io.fleetjobs.store.AttemptReports attemptReports(JdbcClient jdbc, JobStore jobs, MeterRegistry meters) {
        return new io.fleetjobs.store.AttemptReports(jdbc, jobs, new java.security.SecureRandom(), meters);
    }

    @Bean
    OutboxStore outboxStore(JdbcClient jdbc) {
        return new OutboxStore(jdbc);
    }

    @Bean
    Inbox inbox(JdbcClient jdbc, InstantSource clock) {
        return new Inbox(jdbc, clock);
    }
}
