package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SubmitIdempotencyTest {
    private static StoreFixture f;

    @BeforeAll
    static void start() {
        f = new StoreFixture(12);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void concurrentSubmitsWithOneKeyCreateOneJob() throws Exception {
        int threads = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Submission>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Callable<Submission> submit = () -> {
                go.await();
                return f.jobs.submit(f.tenant, StoreFixture.aJob("same"), "key-1");
            };
            results.add(pool.submit(submit));
        }
        go.countDown();
        List<Submission> outcomes = new ArrayList<>();
        for (Future<Submission> r : results) {
            outcomes.add(r.get());
        }
        pool.shutdown();

        assertThat(outcomes).allMatch(s -> s instanceof Submission.Accepted);
        assertThat(outcomes).filteredOn(s -> ((Submission.Accepted) s).created()).hasSize(1);
        assertThat(outcomes).extracting(s -> ((Submission.Accepted) s).job().id()).containsOnly(
                ((Submission.Accepted) outcomes.getFirst()).job().id());
        assertThat(f.count("select count(*) from jobs where idempotency_key = 'key-1'")).isEqualTo(1);
        assertThat(f.count("""
                select count(*) from job_history
                where event_id is not null and job_id = (select id from jobs where idempotency_key = 'key-1')"""))
                .isEqualTo(1);
    }

    @Test
    void aSubmissionAnswersTheRowAsStored() {
        var accepted = (Submission.Accepted) f.jobs.submit(f.tenant, StoreFixture.aJob("as-stored"), null);
        assertThat(accepted.created()).isTrue();
        assertThat(accepted.job()).isEqualTo(f.jobs.get(accepted.job().id()).orElseThrow());
    }

    @Test
    void theSameKeyWithAnotherSpecConflictsAndWritesNothing() {
        JobSpec first = StoreFixture.aJob("first");
        JobSpec second = new JobSpec("first", null, null, Resources.of(2, 256), null, Execution.of("true"), null, null);
        assertThat(f.jobs.submit(f.tenant, first, "key-2")).isInstanceOf(Submission.Accepted.class);
        long jobs = f.count("select count(*) from jobs");
        assertThat(f.jobs.submit(f.tenant, second, "key-2")).isInstanceOf(Submission.KeyConflict.class);
        assertThat(f.count("select count(*) from jobs")).isEqualTo(jobs);
    }

    @Test
    void keysAreScopedToTheTenantAndSameMeaningIsTheSameSpec() {
        var other = f.tenants.create("other", 1, null, null, null).orElseThrow().id();
        var a = (Submission.Accepted) f.jobs.submit(f.tenant, StoreFixture.aJob("x"), "key-3");
        var b = (Submission.Accepted) f.jobs.submit(other, StoreFixture.aJob("x"), "key-3");
        assertThat(b.created()).isTrue();
        assertThat(b.job().id()).isNotEqualTo(a.job().id());
        // cpu 1 and cpu 1.000 mean the same: a replay, not a conflict
        JobSpec same = new JobSpec("x", "default", 500, new Resources(new BigDecimal("1.000"), 256L, 0, null),
                null, Execution.of("true"), null, null);
        var replay = f.jobs.submit(f.tenant, same, "key-3");
        assertThat(replay).isEqualTo(new Submission.Accepted(a.job(), false));
    }
}
