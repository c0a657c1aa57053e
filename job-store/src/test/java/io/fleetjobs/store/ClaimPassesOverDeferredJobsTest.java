package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobState;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A backlog of jobs that can never fit (deferred, not_before ahead) costs a claim nothing per deferred job: the claim
 * passes over them on their index entries and reads the rows of the due jobs only. On the index before V29, each
 * claim read every deferred job's row to drop it (47 ms a claim at 20,000 of them).
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
