package io.fleetjobs.jobservice.reports;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Json;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.store.Submission;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.testsupport.TestDatabases;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Kafka's path does not queue behind a heartbeat applying the same report: a batch whose report's
 * attempt another transaction holds applies the rest of the batch and leaves that report to the
 * holder (and to the agent's next heartbeat, which carries it until acknowledged).
 */
class AttemptStatusConsumerTest {
    private static HikariDataSource dataSource;
    private static JobStore jobs;
    private static PlacementStore placement;
    private static AttemptStatusConsumer consumer;
    private static UUID tenant;

    @BeforeAll
    static void start() {
        dataSource = TestDatabases.create().dataSource(4);
        JdbcClient jdbc = JdbcClient.create(dataSource);
        jobs = new JobStore(jdbc, new DataSourceTransactionManager(dataSource), InstantSource.system(), null);
        placement = new PlacementStore(jdbc, jobs);
        consumer = new AttemptStatusConsumer(new AttemptReports(jdbc, jobs, new Random(3)));
        tenant = new TenantStore(jdbc, InstantSource.system()).create("acme", 1, null, null, null).orElseThrow().id();
        new MachineStore(jdbc, InstantSource.system()).register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterAll
    static void stop() {
        dataSource.close();
    }

    private static JobRecord placed(String name) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 64), null, Execution.of("true"), null, null);
        JobRecord job = ((Submission.Accepted) jobs.submit(tenant, spec, null, true)).job();
        jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(job.id())).getFirst(), "m", 1000, 64, 0)), List.of(), Duration.ofSeconds(30)));
        return jobs.get(job.id()).orElseThrow();
    }

    private static String succeeded(JobRecord job) {
        Instant t = Instant.now();
        return Json.write(new AttemptReport(job.id(), job.attempt(), 1, "m", AttemptState.SUCCEEDED, 0, null, t, t, "", ""));
    }

    @Test
    void aReportWhoseAttemptIsHeldDoesNotHoldUpTheBatch() throws Exception {
        JobRecord held = placed("held");
        JobRecord free = placed("free");
        try (Connection heartbeat = dataSource.getConnection()) {
            heartbeat.setAutoCommit(false);
            try (var lock = heartbeat.prepareStatement("select 1 from attempts where job_id = ? for update")) {
                lock.setObject(1, held.id());
                lock.executeQuery().close();
            }
            CompletableFuture.runAsync(() -> consumer.onReports(List.of(succeeded(held), succeeded(free))))
                    .get(10, TimeUnit.SECONDS);
            assertThat(jobs.get(free.id()).orElseThrow().state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(jobs.get(held.id()).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
            heartbeat.rollback();
        }
    }
}
