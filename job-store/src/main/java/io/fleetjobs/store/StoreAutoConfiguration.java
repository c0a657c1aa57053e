package io.fleetjobs.store;

import io.micrometer.core.instrument.MeterRegistry;
import java.security.SecureRandom;
import java.time.InstantSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The clock and the stores every service builds the same way, once: a service declares only what it
 * builds differently (job-service's {@link JobStore}, which wakes its outbox relay), and a test may
 * put its own clock in their place.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.JdbcClientAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration"})
public class StoreAutoConfiguration {
    /**
     * The database's clock where the service has a database ({@link DatabaseClock}): liveness is judged on it, and
     * every time a service writes is on it, so that no two machines' clocks are ever compared; this machine's
     * elsewhere.
     */
    @Bean
    @ConditionalOnMissingBean
    InstantSource clock(ObjectProvider<JdbcClient> jdbc) {
        JdbcClient database = jdbc.getIfAvailable();
        return database == null ? InstantSource.system() : new DatabaseClock(database).start();
    }

    /** The stores, where the service has a database. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean({JdbcClient.class, PlatformTransactionManager.class})
    static class Stores {
        @Bean
        @ConditionalOnMissingBean
        JobStore jobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock,
                ObjectProvider<MeterRegistry> meters) {
            return new JobStore(jdbc, transactions, clock, meters.getIfAvailable());
        }

        @Bean
        @ConditionalOnMissingBean
        TenantStore tenantStore(JdbcClient jdbc, InstantSource clock) {
            return new TenantStore(jdbc, clock);
        }

        @Bean
        @ConditionalOnMissingBean
        PlacementStore placementStore(JdbcClient jdbc, JobStore jobs) {
            return new PlacementStore(jdbc, jobs);
        }

        @Bean
        @ConditionalOnMissingBean
        MachineStore machineStore(JdbcClient jdbc, InstantSource clock) {
            return new MachineStore(jdbc, clock);
        }

        @Bean
        @ConditionalOnMissingBean
        AttemptReports attemptReports(JdbcClient jdbc, JobStore jobs, ObjectProvider<MeterRegistry> meters) {
            return new AttemptReports(jdbc, jobs, new SecureRandom(), meters.getIfAvailable());
        }

        @Bean
        @ConditionalOnMissingBean
        RepairStore repairStore(JdbcClient jdbc) {
            return new RepairStore(jdbc);
        }

        @Bean
        @ConditionalOnMissingBean
        RetentionStore retentionStore(JdbcClient jdbc, JobStore jobs) {
            return new RetentionStore(jdbc, jobs);
        }

        @Bean
        @ConditionalOnMissingBean
        Inbox inbox(JdbcClient jdbc, InstantSource clock) {
            return new Inbox(jdbc, clock);
        }

        @Bean
        @ConditionalOnMissingBean
        OutboxStore outboxStore(JdbcClient jdbc) {
            return new OutboxStore(jdbc);
        }

        @Bean
        @ConditionalOnMissingBean
        FleetStatistics fleetStatistics(JdbcClient jdbc) {
            return new FleetStatistics(jdbc);
        }

        @Bean
        @ConditionalOnMissingBean
        HeartbeatWatermarks heartbeatWatermarks(JdbcClient jdbc, InstantSource clock) {
            return new HeartbeatWatermarks(jdbc, clock);
        }

        @Bean
        @ConditionalOnMissingBean
        CadenceStore cadenceStore(JdbcClient jdbc, InstantSource clock) {
            return new CadenceStore(jdbc, clock);
        }

        @Bean
        @ConditionalOnMissingBean
        LogStreams logStreams(JdbcClient jdbc, InstantSource clock) {
            return new LogStreams(jdbc, clock);
        }
    }
}
