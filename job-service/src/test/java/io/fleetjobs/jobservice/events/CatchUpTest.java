package io.fleetjobs.jobservice.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.store.FeedEvent;
import io.fleetjobs.store.HistoryFeed;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Submission;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.testsupport.TestDatabases;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * A stream resuming far behind catches up on its own thread: its reads (a tenant's rows are found by position among
 * every tenant's, slow over a long history) hold no other stream of the instance, and it then rides along with the
 * feed, missing nothing and given nothing twice.
 */
class CatchUpTest {
    HikariDataSource dataSource;
    JobStore jobs;
    UUID slow;
    UUID other;
    final CountDownLatch reading = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    EventFeed feed;
    final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void aDatabase() {
        dataSource = TestDatabases.create().dataSource(4);
        JdbcClient jdbc = JdbcClient.create(dataSource);
        jobs = new JobStore(jdbc, new DataSourceTransactionManager(dataSource), InstantSource.system(), null);
        TenantStore tenants = new TenantStore(jdbc, InstantSource.system());
        slow = tenants.create("slow", 1, null, null, null).orElseThrow().id();
        other = tenants.create("other", 1, null, null, null).orElseThrow().id();
        HistoryFeed history = new HistoryFeed(jdbc) {
            @Override
            public List<FeedEvent> ofTenant(UUID tenantId, long after, long upTo, int limit) {
                if (tenantId.equals(slow)) { // a long history, read slowly
                    reading.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.ofTenant(tenantId, after, upTo, limit);
            }
        };
        feed = new EventFeed(history, InstantSource.system(), Duration.ZERO, 10, 1_000);
    }

    @AfterEach
    void stop() {
        release.countDown();
        threads.shutdownNow();
        dataSource.close();
    }

    private UUID submit(UUID tenant, String name) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("true"), null, null);
        return ((Submission.Accepted) jobs.submit(tenant, spec, null)).job().id();
    }

    @Test
    void aStreamCatchingUpHoldsNoOtherStreamAndThenMissesNothing() throws Exception {
        feed.poll();
        long start = feed.head();
        UUID old = submit(slow, "old");
        feed.poll();
        EventFeed.Stream behind = feed.open(slow, null, start);
        EventFeed.Stream live = feed.open(other, null, feed.head());
        CompletableFuture<List<UUID>> caughtUp = CompletableFuture.supplyAsync(() -> drain(behind, 3), threads);
        CompletableFuture.runAsync(feed::poll, threads); // the feed's own poll, which once did the catch-up, under its lock
        assertThat(reading.await(10, TimeUnit.SECONDS)).as("the catch-up is reading").isTrue();

        UUID news = submit(other, "news");
        UUID later = submit(slow, "later");
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            feed.poll();
            assertThat(live.next(Duration.ZERO)).extracting(FeedEvent::jobId).as("served meanwhile").isEqualTo(news);
        });

        release.countDown();
        UUID last = submit(slow, "last");
        while (!caughtUp.isDone()) {
            feed.poll();
            Thread.onSpinWait();
        }
        assertThat(caughtUp.get()).containsExactly(old, later, last);
        assertThat(behind.next(Duration.ZERO)).as("nothing twice").isNull();
    }

    /** The stream's own thread, as a request's: the first {@code n} changes it is given. */
    private static List<UUID> drain(EventFeed.Stream stream, int n) {
        List<UUID> got = new ArrayList<>();
        try {
            while (got.size() < n) {
                FeedEvent e = stream.next(Duration.ofMillis(50));
                if (e != null) {
                    got.add(e.jobId());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return got;
    }
}
