package io.fleetjobs.reconciler.sweeps;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.reconciler.domain.Retention;
import io.fleetjobs.store.Inbox;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.RetentionStore;
import io.fleetjobs.store.Submission;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.store.Transition;
import io.fleetjobs.testsupport.SettableClock;
import io.fleetjobs.testsupport.TestDatabases;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** The retention sweep against the real database, with a clock the test moves. */
class RetentionSweepTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private final SettableClock clock = new SettableClock(T0);
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private HikariDataSource ds;
    private JdbcClient jdbc;
    private JobStore jobs;
    private UUID tenant;
    private RetentionSweep sweep;

    @BeforeEach
    void setUp() {
        ds = TestDatabases.create().dataSource(4);
        jdbc = JdbcClient.create(ds);
        jobs = new JobStore(jdbc, new DataSourceTransactionManager(ds), clock, null);
        tenant = new TenantStore(jdbc, clock).create("t", 1, null, null, null).orElseThrow().id();
        sweep = new RetentionSweep(new RetentionStore(jdbc, jobs),
                new Retention(Duration.ofDays(30), 2, 10, Duration.ofMinutes(1)), meters);
    }

    @AfterEach
    void tearDown() {
        ds.close();
    }

    private JobRecord queued(String name) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("true"), null, null);
        return jobs.transition(((Submission.Accepted) jobs.submit(tenant, spec, null)).job(), Transition.admit()).orElseThrow();
    }

    /** The outbox relay (job-service's) has published every event so far: their jobs may go. */
    private void relayPublishedEverything() {
        jdbc.sql("update event_relay set position = (select coalesce(max(position), 0) from job_history)").update();
    }

    private long count(String sql) {
        return jdbc.sql(sql).query(Long.class).single();
    }

    @Test
    void finishedJobsPastTheRetentionGoInBatchesOncePerIntervalAndAreCounted() {
        for (int i = 0; i < 5; i++) {
            jobs.transition(queued("old-" + i), Transition.cancel("canceled by user")).orElseThrow();
        }
        JobRecord live = queued("old-live");
        new Inbox(jdbc, clock).firstTime("c", UUID.randomUUID());
        clock.set(T0.plus(Duration.ofDays(29)));
        JobRecord recent = jobs.transition(queued("recent"), Transition.cancel("canceled by user")).orElseThrow();

        clock.set(T0.plus(Duration.ofDays(30)).plusMillis(1));
        relayPublishedEverything();
        assertThat(sweep.run(clock.instant())).as("5 jobs in batches of 2, and one event mark").isEqualTo(6);
        assertThat(count("select count(*) from jobs")).isEqualTo(2);
        assertThat(jobs.get(live.id())).isPresent();
        assertThat(jobs.get(recent.id())).isPresent();
        assertThat(count("select count(*) from job_history where job_id not in (select id from jobs)")).isZero();
        assertThat(meters.counter("retention.deleted.jobs").count()).isEqualTo(5);
        assertThat(meters.counter("retention.deleted.processed.events").count()).isEqualTo(1);

        Instant firstRun = clock.instant();
        clock.set(T0); // one more that finished long ago
        JobRecord late = jobs.transition(queued("late"), Transition.cancel("canceled by user")).orElseThrow();
        clock.set(firstRun.plusSeconds(30));
        relayPublishedEverything();
        assertThat(sweep.run(clock.instant())).as("within its interval the sweep does not run again").isZero();
        assertThat(jobs.get(late.id())).isPresent();
        clock.set(firstRun.plus(Duration.ofMinutes(1)));
        assertThat(sweep.run(clock.instant())).isEqualTo(1);
        assertThat(jobs.get(late.id())).isEmpty();
        assertThat(jobs.get(live.id())).as("live, however old").isPresent();
        assertThat(meters.counter("retention.deleted.jobs").count()).isEqualTo(6);
    }
}
