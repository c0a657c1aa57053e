package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The auto-drain's reads cost what they return, not the attempts table: a machine's last outcomes and the machines
 * with recent platform failures are read on their indexes (V30). Before, each walked the table (47 and 97 ms a call
 * in a W1 profile at 50,000 jobs).
 */
class AutoDrainReadsTest {
    private static final int ENDED = 20_000;
    private static StoreFixture f;
    private static long pages;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
        new MachineStore(f.jdbc, f.jobs.clock()).register("m", "eu", Map.of(), null, 64_000, 65_536, 0);
        JobRecord job = f.submitted("ended-many-times");
        // a machine's long past: attempts that ended a day ago, then three platform failures just now
        f.jdbc.sql("""
                        insert into attempts (job_id, attempt, machine_id, state, lease_epoch, scheduled_at, finished_at, cpu_millis,
                                              memory_mb, gpu_count, released_at, failure_reason, log_tail_stdout)
                        select :job, g, 'm', case when g > :n then 'FAILED' else 'SUCCEEDED' end, 1,
                               now() - interval '1 day', case when g > :n then now()
                                                         else now() - interval '1 day' + g * interval '1 ms' end,
                               1000, 64, 0, now(), case when g > :n then 'LEASE_EXPIRED' end, repeat('x', 200)
                        from generate_series(1, :n + 3) g""")
                .param("job", job.id()).param("n", ENDED).update();
        f.jdbc.sql("analyze attempts").update();
        pages = f.jdbc.sql("select relpages from pg_class where relname = 'attempts'").query(Long.class).single();
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void aMachinesLastOutcomesAreReadOnTheirIndex() {
        JsonNode plan = explain(RepairStore.LAST_OUTCOMES, s -> s.param("m", "m").param("n", 10));
        assertThat(plan.get("Actual Rows").asLong()).isEqualTo(10);
        assertThat(blocks(plan)).as("pages read, of the table's %d (plan: %s)", pages, plan).isLessThan(pages / 5);
    }

    @Test
    void theMachinesWithRecentPlatformFailuresAreReadOnTheirIndex() {
        JsonNode plan = explain(RepairStore.RECENT_PLATFORM_FAILURES,
                s -> s.param("since", JobRows.ts(Instant.now().minusSeconds(600))));
        assertThat(plan.get("Actual Rows").asLong()).as("machine m").isEqualTo(1);
        assertThat(blocks(plan)).as("pages read, of the table's %d (plan: %s)", pages, plan).isLessThan(pages / 5);
    }

    private static JsonNode explain(String sql, Function<JdbcClient.StatementSpec, JdbcClient.StatementSpec> params) {
        assertThat(pages).as("the ended attempts fill the table's pages").isGreaterThan(500);
        String json = params.apply(f.jdbc.sql("explain (analyze, buffers, format json) " + sql)).query(String.class).single();
        return JsonMapper.builder().build().readTree(json).get(0).get("Plan");
    }

    private static long blocks(JsonNode plan) {
        return plan.get("Shared Hit Blocks").asLong() + plan.get("Shared Read Blocks").asLong();
    }
}
