package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A tenant's quota on live jobs: a submit past it writes nothing, also when many race; a repeated key still answers. */
class LiveJobQuotaTest {
    private static StoreFixture f;

    @BeforeAll
    static void start() {
        f = new StoreFixture(16);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static UUID tenant(String name, Integer maxLiveJobs) {
        return f.tenants.create(name, 1, new TenantStore.Quota(null, null, null, maxLiveJobs)).orElseThrow().id();
    }

    private static long rows(String table, UUID tenant) {
        String job = table.equals("jobs") ? "id" : "job_id";
        return f.count("select count(*) from " + table + " where " + job + " in (select id from jobs where tenant_id = '"
                + tenant + "')");
    }

    @Test
    void aSubmitPastTheQuotaIsRefusedAndWritesNothingUntilAJobEnds() {
        UUID alice = tenant("quota-alice", 2);
        JobRecord first = ((Submission.Accepted) f.jobs.submit(alice, StoreFixture.aJob("one"), "k-1")).job();
        assertThat(f.jobs.submit(alice, StoreFixture.aJob("two"), null, true)).isInstanceOf(Submission.Accepted.class);
        long history = rows("job_history", alice);

        assertThat(f.jobs.submit(alice, StoreFixture.aJob("three"), "k-3")).isEqualTo(new Submission.OverQuota(2, 2));
        assertThat(f.jobs.submit(alice, StoreFixture.aJob("three"), null, true)).isEqualTo(new Submission.OverQuota(2, 2));
        assertThat(rows("jobs", alice)).isEqualTo(2);
        assertThat(rows("job_history", alice)).isEqualTo(history);

        assertThat(f.jobs.submit(alice, StoreFixture.aJob("one"), "k-1")).as("the same key and body: the same job, at the quota")
                .isEqualTo(new Submission.Accepted(first, false));
        assertThat(f.jobs.submit(alice, StoreFixture.aJob("other"), "k-1")).isInstanceOf(Submission.KeyConflict.class);

        f.jobs.transition(first, Transition.cancel("canceled by user")).orElseThrow();
        assertThat(f.jobs.submit(alice, StoreFixture.aJob("three"), "k-3")).as("a finished job frees its place")
                .isInstanceOf(Submission.Accepted.class);
        assertThat(f.jobs.submit(alice, StoreFixture.aJob("four"), null)).isInstanceOf(Submission.OverQuota.class);

        UUID unlimited = tenant("quota-none", null);
        for (int i = 0; i < 5; i++) {
            assertThat(f.jobs.submit(unlimited, StoreFixture.aJob("n" + i), null)).isInstanceOf(Submission.Accepted.class);
        }
        UUID none = tenant("quota-zero", 0);
        assertThat(f.jobs.submit(none, StoreFixture.aJob("z"), null)).isEqualTo(new Submission.OverQuota(0, 0));
    }

    @Test
    void concurrentSubmitsNeverPassTheQuotaTogether() throws Exception {
        UUID bob = tenant("quota-bob", 5);
        int threads = 12;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Submission>> results = new ArrayList<>();
        for (int i = 0; i < threads * 3; i++) {
            int n = i;
            results.add(pool.submit(() -> {
                go.await();
                return f.jobs.submit(bob, StoreFixture.aJob("race-" + n), n % 2 == 0 ? "race-" + n : null, n % 3 == 0);
            }));
        }
        go.countDown();
        List<Submission> outcomes = new ArrayList<>();
        for (Future<Submission> r : results) {
            outcomes.add(r.get());
        }
        pool.shutdown();

        assertThat(outcomes).filteredOn(s -> s instanceof Submission.Accepted).hasSize(5);
        assertThat(outcomes).filteredOn(s -> s instanceof Submission.OverQuota).hasSize(threads * 3 - 5)
                .allSatisfy(s -> assertThat(((Submission.OverQuota) s).liveJobs()).isEqualTo(5));
        assertThat(rows("jobs", bob)).isEqualTo(5);
    }

    /**
     * A tenant without a quota takes no lock on its row to submit, not even a foreign key's share lock: a tenant's
     * concurrent submits all took that one row's lock, a multixact made again at every submit (V35). Here the row is
     * held exclusively by another transaction, and the submit does not wait for it.
     */
    @Test
    void aSubmitOfATenantWithoutAQuotaTakesNoLockOnItsRow() throws Exception {
        UUID carol = tenant("quota-less-carol", null);
        try (Connection holder = f.dataSource.getConnection()) {
            holder.setAutoCommit(false);
            try (var lock = holder.prepareStatement("select id from tenants where id = ? for update")) {
                lock.setObject(1, carol);
                lock.executeQuery().close();
            }
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Submission> submit = pool.submit(() -> f.jobs.submit(carol, StoreFixture.aJob("unlocked"), null, true));
                assertThat(submit.get(10, TimeUnit.SECONDS)).as("while the tenant's row is locked")
                        .isInstanceOf(Submission.Accepted.class);
            } finally {
                holder.rollback();
                pool.shutdown();
            }
        }
        assertThat(rows("jobs", carol)).isEqualTo(1);
    }
}
