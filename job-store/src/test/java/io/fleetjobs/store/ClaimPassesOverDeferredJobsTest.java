package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobState;
import io.fleetjobs.model.UnplacedKind;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A backlog of deferred jobs (not_before ahead) costs a claim nothing per deferred job: the claim passes over a retry's
 * backoff on its index entry and reads the rows of the due jobs only (on the index before V29, each claim read every
 * deferred job's row to drop it: 47 ms a claim at 20,000 of them); and jobs waiting out a "fits nowhere" backoff are
 * not in the claim's index at all (V36): the claim walked every one of their entries, 581 index pages a claim.
 */
class ClaimPassesOverDeferredJobsTest {
    private static final int DEFERRED = 3_000;
    private static StoreFixture f;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @BeforeEach
    void noJobs() {
        f.jdbc.sql("truncate jobs").update(); // no dead index entries of the test before
    }

    @Test
    void aClaimReadsNoEntryOfTheJobsWaitingOutAFitsNowhereBackoffAndTakesThoseDueFirst() {
        JobRecord model = f.jobs.transition(f.submitted("never-fits"), Transition.admit()).orElseThrow();
        Instant now = Instant.now().minusSeconds(1);
        // copies of one queued job that could never fit: 10,000 waiting out their backoff, 3 whose backoff ended (two
        // of them at the same instant)
        f.jdbc.sql("""
                        insert into jobs
                        select (jsonb_populate_record(j, jsonb_build_object('id', gen_random_uuid(), 'name', 'waiting',
                                'not_before', cast(:nb as timestamptz) + make_interval(secs => n), 'unplaced_kind', 'CAN_NEVER_FIT'))).*
                        from jobs j, generate_series(1, :n) n where j.id = :id""")
                .param("nb", JobRows.ts(now.plus(Duration.ofMinutes(10)))).param("n", 10_000).param("id", model.id()).update();
        f.jdbc.sql("""
                        insert into jobs
                        select (jsonb_populate_record(j, jsonb_build_object('id', gen_random_uuid(), 'name', 'due-never-fits-' || n,
                                'not_before', cast(:nb as timestamptz) - make_interval(secs => least(n, 2)), 'priority', n * 100,
                                'unplaced_kind', 'CAN_NEVER_FIT'))).*
                        from jobs j, generate_series(1, 3) n where j.id = :id""")
                .param("nb", JobRows.ts(now)).param("id", model.id()).update();
        f.jdbc.sql("delete from jobs where id = :id").param("id", model.id()).update();
        for (int i = 0; i < 5; i++) {
            f.jobs.transition(f.submitted("due-" + i), Transition.admit()).orElseThrow();
        }
        f.jdbc.sql("analyze jobs").update();
        Instant claimAt = Instant.now();
        long backlogPages = f.jdbc.sql("select pg_relation_size('jobs_never_fit_due') / 8192").query(Long.class).single();

        long claimBlocks = blocks(QueuedJobs.claimSql(""), claimAt, 500, 5);
        long dueBlocks = blocks(QueuedJobs.DUE_NEVER_FITTING_SQL, claimAt, 250, 3);

        assertThat(backlogPages).as("the backlog's entries fill pages of their own index").isGreaterThan(25);
        assertThat(claimBlocks).as("pages the claim reads").isLessThan(15);
        assertThat(dueBlocks).as("pages the claim of those due reads").isLessThan(15);
        List<ClaimedJob> claimed = f.jobs.inTransaction(() -> new QueuedJobs(f.jdbc, InstantSource.fixed(claimAt)).claim(10));
        assertThat(claimed).extracting(j -> f.jdbc.sql("select name from jobs where id = :id").param("id", j.id()).query(String.class).single())
                .as("those due first, the longest due first (then by priority); then the claim's order")
                .startsWith("due-never-fits-3", "due-never-fits-2", "due-never-fits-1").endsWith("due-4").hasSize(8);
        assertThat(claimed.subList(0, 3)).extracting(ClaimedJob::shown).extracting(PlacementStore.Shown::kind)
                .containsOnly(UnplacedKind.CAN_NEVER_FIT);
    }

    private static long blocks(String sql, Instant now, int limit, int rows) {
        String plan = f.jobs.inTransaction(() -> f.jdbc.sql("explain (analyze, buffers, format json) " + sql)
                .param("now", JobRows.ts(now)).param("limit", limit).query(String.class).single());
        JsonNode top = JsonMapper.builder().build().readTree(plan).get(0).get("Plan");
        assertThat(top.get("Actual Rows").asLong()).as(plan).isEqualTo(rows);
        return top.get("Shared Hit Blocks").asLong() + top.get("Shared Read Blocks").asLong();
    }

    @Test
    void aClaimReadsTheRowsOfTheDueJobsOnly() {
        JobRecord model = f.jobs.transition(f.submitted("never-fits"), Transition.admit()).orElseThrow();
        Instant later = Instant.now().plus(Duration.ofMinutes(10));
        // copies of one queued job, each deferred: what the scheduler leaves of jobs that can never fit
        f.jdbc.sql("""
                        insert into jobs
                        select (jsonb_populate_record(j, jsonb_build_object('id', gen_random_uuid(), 'not_before', cast(:later as timestamptz)))).*
                        from jobs j, generate_series(1, :n) where j.id = :id""")
                .param("later", JobRows.ts(later)).param("n", DEFERRED).param("id", model.id()).update();
        f.jdbc.sql("update jobs set not_before = :later where id = :id").param("later", JobRows.ts(later))
                .param("id", model.id()).update();
        for (int i = 0; i < 5; i++) {
            assertThat(f.jobs.transition(f.submitted("due-" + i), Transition.admit()).orElseThrow().state())
                    .isEqualTo(JobState.QUEUED);
        }
        f.jdbc.sql("analyze jobs").update();
        long pages = f.jdbc.sql("select relpages from pg_class where relname = 'jobs'").query(Long.class).single();

        String plan = f.jobs.inTransaction(() -> f.jdbc.sql("explain (analyze, buffers, format json) "
                        + QueuedJobs.claimSql("")).param("now", JobRows.ts(Instant.now())).param("limit", 500)
                .query(String.class).single());
        JsonNode top = JsonMapper.builder().build().readTree(plan).get(0).get("Plan");
        long blocks = top.get("Shared Hit Blocks").asLong() + top.get("Shared Read Blocks").asLong();

        assertThat(top.get("Actual Rows").asLong()).as("the due jobs, claimed").isEqualTo(5);
        assertThat(pages).as("the deferred jobs' rows fill the table's pages").isGreaterThan(150);
        assertThat(blocks).as("pages a claim reads, of the table's %d (plan: %s)", pages, plan).isLessThan(pages / 5);
    }

}
