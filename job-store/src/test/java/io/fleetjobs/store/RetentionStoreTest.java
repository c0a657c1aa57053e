package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.testsupport.SettableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Retention deletes only what finished before it, whole, in bounded batches; what remains keeps the invariants. */
class RetentionStoreTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");
    private static final Duration RETENTION = Duration.ofDays(30);

    private final SettableClock clock = new SettableClock(T0);
    private StoreFixture f;
    private RetentionStore retention;
    private PlacementStore placement;
    private AttemptReports reports;

    @BeforeEach
    void setUp() {
        f = new StoreFixture(4, clock);
        retention = new RetentionStore(f.jdbc, f.jobs);
        placement = new PlacementStore(f.jdbc, f.jobs);
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(5));
        new MachineStore(f.jdbc, clock).register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
    }

    @AfterEach
    void tearDown() {
        f.close();
    }

    /** A job that ran on m and succeeded now: 5 history rows, one attempt. */
    private JobRecord ranAndSucceeded(String name) {
        JobRecord queued = f.jobs.transition(f.submitted(name), Transition.admit()).orElseThrow();
        f.jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(queued.id())).getFirst(), "m", 1000, 256, 0)), List.of(), Duration.ofSeconds(30)));
        for (AttemptState state : new AttemptState[] {AttemptState.RUNNING, AttemptState.SUCCEEDED}) {
            reports.apply(new AttemptReport(queued.id(), 1, f.epoch(queued.id(), 1), "m", state, state.isLive() ? null : 0, null, clock.instant(),
                    state.isLive() ? null : clock.instant(), "out", ""));
        }
        JobRecord done = f.jobs.get(queued.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        return done;
    }

    private JobRecord canceled(String name) {
        JobRecord queued = f.jobs.transition(f.submitted(name), Transition.admit()).orElseThrow();
        return f.jobs.transition(queued, Transition.cancel("canceled by user")).orElseThrow();
    }

    private boolean exists(JobRecord job) {
        return f.jobs.get(job.id()).isPresent();
    }

    @Test
    void onlyJobsFinishedBeforeTheRetentionGoWholeAndWhatRemainsHasNoOrphansOrGaps() {
        JobRecord outside = ranAndSucceeded("just-outside");         // finished at T0
        JobRecord live = f.jobs.transition(f.submitted("old-but-live"), Transition.admit()).orElseThrow();
        new Inbox(f.jdbc, clock).firstTime("consumer", UUID.randomUUID());
        clock.advance(Duration.ofSeconds(2));
        JobRecord inside = ranAndSucceeded("just-inside");           // finished at T0 + 2 s
        JobRecord canceledInside = canceled("canceled-inside");
        new Inbox(f.jdbc, clock).firstTime("consumer", UUID.randomUUID());

        clock.set(T0.plus(RETENTION).plusSeconds(1));                // the retention reaches T0 + 1 s
        Instant cutoff = clock.instant().minus(RETENTION);
        relayPublishedEverything();
        RetentionStore.Deleted deleted = retention.deleteFinishedJobs(cutoff, 500);

        assertThat(deleted).isEqualTo(new RetentionStore.Deleted(1, 1, 5, 0));
        assertThat(exists(outside)).isFalse();
        assertThat(f.jobs.history(outside.id())).isEmpty();
        assertThat(f.jobs.attempts(outside.id())).isEmpty();
        assertThat(exists(inside)).as("finished 1 s inside the retention").isTrue();
        assertThat(exists(canceledInside)).isTrue();
        assertThat(exists(live)).as("live, however old").isTrue();
        assertThat(retention.deleteFinishedJobs(cutoff, 500)).as("nothing more to do")
                .isEqualTo(new RetentionStore.Deleted(0, 0, 0, 0));
        assertThat(retention.deleteProcessedEvents(cutoff, 500)).isEqualTo(1);
        assertThat(f.count("select count(*) from processed_events")).isEqualTo(1);
        assertInvariants();
    }

    @Test
    void aJobWhoseEventsTheRelayHasNotPublishedStaysUntilItHas() {
        JobRecord published = canceled("published");
        relayPublishedEverything();
        JobRecord waiting = canceled("events-waiting"); // the relay is behind: Kafka was down, say
        clock.set(T0.plus(RETENTION).plus(Duration.ofHours(1)));
        Instant cutoff = clock.instant().minus(RETENTION);

        assertThat(retention.deleteFinishedJobs(cutoff, 500).jobs()).isEqualTo(1);
        assertThat(exists(published)).isFalse();
        assertThat(exists(waiting)).as("its history is its events: it stays until they are out").isTrue();

        relayPublishedEverything();
        assertThat(retention.deleteFinishedJobs(cutoff, 500).jobs()).isEqualTo(1);
        assertThat(exists(waiting)).isFalse();
    }

    /** The relay's cursor past every history row written so far. */
    private void relayPublishedEverything() {
        f.jdbc.sql("update event_relay set position = (select coalesce(max(position), 0) from job_history)").update();
    }

    @Test
    void batchesAreBoundedOldestFirstAndSkipWhatAnotherTransactionHolds() throws Exception {
        List<JobRecord> old = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            old.add(canceled("old-" + i));
            clock.advance(Duration.ofSeconds(1));
        }
        clock.set(T0.plus(RETENTION).plus(Duration.ofHours(1)));
        Instant cutoff = clock.instant().minus(RETENTION);
        relayPublishedEverything();

        try (Connection other = f.dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (PreparedStatement lock = other.prepareStatement("select id from jobs where id = ? for update")) {
                lock.setObject(1, old.getFirst().id());
                lock.executeQuery().close();
            }
            assertThat(retention.deleteFinishedJobs(cutoff, 2).jobs()).isEqualTo(2);
            assertThat(old.stream().filter(this::exists).map(j -> j.spec().name()))
                    .as("the oldest but the locked one, two at most").containsExactly("old-0", "old-3", "old-4");
            assertThat(retention.deleteFinishedJobs(cutoff, 2).jobs()).isEqualTo(2);
            assertThat(retention.deleteFinishedJobs(cutoff, 2).jobs()).as("the locked one is skipped, not waited for")
                    .isZero();
            other.rollback();
        }
        assertThat(retention.deleteFinishedJobs(cutoff, 2).jobs()).isEqualTo(1);
        assertThat(f.count("select count(*) from jobs")).isZero();
        assertInvariants();
    }

    private void assertInvariants() {
        assertThat(f.count("select count(*) from attempts a where not exists (select 1 from jobs j where j.id = a.job_id)"))
                .as("attempts without their job").isZero();
        assertThat(f.count("select count(*) from job_history h where not exists (select 1 from jobs j where j.id = h.job_id)"))
                .as("history without its job").isZero();
        assertThat(f.count("""
                select count(*) from gpu_holds g
                where not exists (select 1 from attempts a where a.job_id = g.job_id and a.attempt = g.attempt)"""))
                .as("GPU holds without their attempt").isZero();
        assertThat(f.count("""
                select count(*) from jobs j
                where j.version <> (select count(*) from job_history h where h.job_id = j.id)
                   or j.version <> (select max(version) from job_history h where h.job_id = j.id)
                   or 1 <> (select min(version) from job_history h where h.job_id = j.id)"""))
                .as("jobs whose history has gaps").isZero();
        assertThat(f.count("""
                select count(*) from machines m where alloc_cpu_millis <> coalesce((select sum(cpu_millis) from attempts a
                    where a.machine_id = m.id and a.released_at is null), 0)"""))
                .as("machines whose counters are not the sum over held attempts").isZero();
    }
}
