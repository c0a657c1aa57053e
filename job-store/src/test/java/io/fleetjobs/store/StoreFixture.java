package io.fleetjobs.store;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.testsupport.TestDatabases;
import java.time.InstantSource;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** A fresh migrated database and the store over it. */
final class StoreFixture implements AutoCloseable {
    final HikariDataSource dataSource;
    final JdbcClient jdbc;
    final JobStore jobs;
    final TenantStore tenants;
    final UUID tenant;

    StoreFixture(int poolSize) {
        this(poolSize, InstantSource.system());
    }

    /** With the store's clock in the test's hands. */
    StoreFixture(int poolSize, InstantSource clock) {
        dataSource = TestDatabases.create().dataSource(poolSize);
        jdbc = JdbcClient.create(dataSource);
        jobs = new JobStore(jdbc, new DataSourceTransactionManager(dataSource), clock, null);
        tenants = new TenantStore(jdbc, clock);
        tenant = tenants.create("acme", 1, null, null, null).orElseThrow().id();
    }

    static JobSpec aJob(String name) {
        return new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("true"), null, null);
    }

    /** The lease epoch of the attempt the record names (one sequence hands them out: no two leases share one). */
    long epoch(JobRecord job) {
        return epoch(job.id(), job.attempt());
    }

    long epoch(UUID job, int attempt) {
        return jdbc.sql("select lease_epoch from attempts where job_id = :id and attempt = :n")
                .param("id", job).param("n", attempt).query(Long.class).single();
    }

    JobRecord submitted(String name) {
        return ((Submission.Accepted) jobs.submit(tenant, aJob(name), null)).job();
    }

    /** The job's events as the relay publishes them (its history rows since V33), in position order. */
    List<String> eventPayloads(UUID job) {
        long before = jdbc.sql("select coalesce(min(position), 1) - 1 from job_history where job_id = :id").param("id", job)
                .query(Long.class).single();
        return new OutboxStore(jdbc).above(before, 100_000).stream()
                .filter(e -> e.key().equals(job.toString()) && e.payload() != null).map(OutboxStore.Event::payload).toList();
    }

    long count(String sql) {
        return jdbc.sql(sql).query(Long.class).single();
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
