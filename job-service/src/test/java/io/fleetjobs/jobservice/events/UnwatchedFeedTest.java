package io.fleetjobs.jobservice.events;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * While no stream is open the feed reads positions only (not the rows and their jobs), and a stream opened after
 * such polls is still handed every change above its cursor, in order.
 */
class UnwatchedFeedTest {
    HikariDataSource dataSource;
    JobStore jobs;
    UUID tenant;
    AtomicInteger rowReads = new AtomicInteger();
    EventFeed feed;

    @BeforeEach
    void aDatabase() {
        dataSource = TestDatabases.create().dataSource(2);
        JdbcClient jdbc = JdbcClient.create(dataSource);
        jobs = new JobStore(jdbc, new DataSourceTransactionManager(dataSource), InstantSource.system(), null);
        tenant = new TenantStore(jdbc, InstantSource.system()).create("acme", 1, null, null, null).orElseThrow().id();
        HistoryFeed history = new HistoryFeed(jdbc) {
            @Override
            public List<FeedEvent> after(long after, int limit) {
                rowReads.incrementAndGet();
                return super.after(after, limit);
            }
        };
        feed = new EventFeed(history, InstantSource.system(), Duration.ZERO, 10, 100);
    }

    @AfterEach
    void stop() {
        dataSource.close();
    }

    private UUID submit(String name) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("true"), null, null);
        return ((Submission.Accepted) jobs.submit(tenant, spec, null)).job().id();
    }

    @Test
    void anUnwatchedFeedReadsPositionsOnlyAndAStreamOpenedLaterMissesNothing() throws Exception {
        feed.poll();
        long start = feed.head();
        UUID first = submit("first");
        assertThat(feed.poll()).as("the new change's position was read").isEqualTo(1);
        assertThat(feed.head()).isGreaterThan(start);
        assertThat(rowReads).as("no stream: no rows read").hasValue(0);

        EventFeed.Stream stream = feed.open(tenant, null, start); // resumes from before the unwatched polls
        EventFeed.Stream now = feed.open(tenant, null, feed.head()); // from the feed's head
        UUID second = submit("second");
        feed.poll();
        feed.poll();
        assertThat(rowReads).as("watched: rows read").hasPositiveValue();

        List<UUID> behind = new ArrayList<>();
        for (FeedEvent e; (e = stream.next(Duration.ZERO)) != null; ) {
            behind.add(e.jobId());
        }
        assertThat(behind).containsExactly(first, second);
        List<UUID> fromHead = new ArrayList<>();
        for (FeedEvent e; (e = now.next(Duration.ZERO)) != null; ) {
            fromHead.add(e.jobId());
        }
        assertThat(fromHead).containsExactly(second);
    }
}
