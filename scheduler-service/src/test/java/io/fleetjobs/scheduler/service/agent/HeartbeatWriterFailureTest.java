package io.fleetjobs.scheduler.service.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.testsupport.SettableClock;
import io.fleetjobs.testsupport.TestDatabases;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

/**
 * A heartbeat writer whose flush throws an {@code Error} goes on writing, and while its flushes fail the heartbeats
 * are not answered (an answer renews the agent's lease, and the reconciler would see its machine silent) but are
 * heard, and written once the writer works again.
 */
class HeartbeatWriterFailureTest {
    HikariDataSource dataSource;
    MachineStore machines;
    JobStore jobs;
    HeartbeatWriter writer;
    final AtomicInteger errorsLeft = new AtomicInteger();
    final AtomicInteger errors = new AtomicInteger();

    @BeforeEach
    void aDatabase() {
        dataSource = TestDatabases.create().dataSource(2);
        JdbcClient jdbc = JdbcClient.create(dataSource);
        machines = new MachineStore(jdbc, InstantSource.system());
        jobs = new JobStore(jdbc, new DataSourceTransactionManager(dataSource), InstantSource.system(), null);
        machines.register("m-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        // the real store, with errors injected into its first writes
        HeartbeatWriter.Writes failing = new HeartbeatWriter.Writes() {
            @Override
            public Set<String> available(Map<String, Instant> lastSeen) {
                if (errorsLeft.getAndDecrement() > 0) {
                    errors.incrementAndGet();
                    throw new StackOverflowError("injected");
                }
                return machines.heartbeatsAvailable(lastSeen);
            }

            @Override
            public void waiting(Map<String, Instant> lastSeen) {
                machines.heartbeats(lastSeen);
            }
        };
        writer = new HeartbeatWriter(failing, Duration.ofMillis(50), Duration.ofSeconds(1), InstantSource.system());
    }

    @AfterEach
    void stop() {
        writer.stop();
        dataSource.close();
    }

    @Test
    void anErrorInAFlushDoesNotEndTheWriterAndTheHeartbeatIsWrittenLater() {
        errorsLeft.set(1);
        writer.start();
        Instant seen = Instant.now().plusSeconds(60).truncatedTo(ChronoUnit.MILLIS);
        writer.record("m-1", seen);
        await().atMost(Duration.ofSeconds(10)).until(() -> errors.get() == 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> seen.equals(machines.get("m-1").orElseThrow().lastHeartbeatAt()));
        assertThat(writer.healthy()).isTrue();
    }

    @Test
    void whileFlushesFailHeartbeatsAreNotAnsweredAndOnceTheyWorkAgainTheyAre() {
        errorsLeft.set(Integer.MAX_VALUE);
        writer.start();
        writer.record("m-1", Instant.now());
        await().atMost(Duration.ofSeconds(10)).until(() -> !writer.healthy());
        AgentService agents = new AgentService(jobs, machines,
                new AttemptReports(JdbcClient.create(dataSource), jobs, new SecureRandom()), new LeaseBroker(), writer,
                new AgentProperties("token", Duration.ofSeconds(2), null, null, null, null));
        long incarnation = machines.incarnation("m-1").orElseThrow();
        Heartbeat beat = new Heartbeat("m-1", incarnation, List.of(), 0);
        Instant refusedAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        assertThatThrownBy(() -> agents.heartbeat("m-1", beat)).isInstanceOf(AgentService.NotRecorded.class);

        errorsLeft.set(0);
        await().atMost(Duration.ofSeconds(10)).until(writer::healthy);
        // not answered, but heard: the machine was alive, and is not thought silent once the writer works again
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !machines.get("m-1").orElseThrow().lastHeartbeatAt().isBefore(refusedAt));
        assertThat(agents.heartbeat("m-1", beat).leaseTtlMs()).isEqualTo(6_000);
    }

    /**
     * PostgreSQL restarting is no trouble hearing the fleet: the heartbeats heard meanwhile wait in memory, so the first
     * flush that works writes them and a watermark of its own time, not one held back to when the flushes began to
     * fail (which would delay every judgement of a machine that died meanwhile by a calm).
     */
    @Test
    void aWriterThatCouldNotWriteHoldsNoWatermarkBackOnceItWritesAgain() {
        // later than the machine's registration: a machine's last heartbeat only moves forward
        SettableClock clock = new SettableClock(Instant.now().plusSeconds(60).truncatedTo(ChronoUnit.MILLIS));
        List<Instant> watermarks = new ArrayList<>();
        HeartbeatWriter manual = new HeartbeatWriter(writes(watermarks), Duration.ofMillis(200), Duration.ofSeconds(1),
                clock);
        Instant t = clock.instant();
        errorsLeft.set(1);
        manual.record("m-1", t);
        manual.flush();
        assertThat(watermarks).as("the failed flush wrote nothing").isEmpty();

        clock.set(t.plusSeconds(3));
        manual.record("m-1", t.plusSeconds(3));
        manual.flush();
        assertThat(machines.get("m-1").orElseThrow().lastHeartbeatAt()).isEqualTo(t.plusSeconds(3));
        assertThat(watermarks).containsExactly(t.plusSeconds(3));
    }

    /** A heartbeat whose credential cannot be read is a machine alive and unheard: the watermark waits for it. */
    @Test
    void aCredentialThatCannotBeReadHoldsTheWatermarkBack() throws Exception {
        SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
        List<Instant> watermarks = new ArrayList<>();
        HeartbeatWriter manual = new HeartbeatWriter(writes(watermarks), Duration.ofMillis(200), Duration.ofSeconds(1),
                clock);
        // a database that cannot be reached
        DataSource down = new AbstractDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                throw new SQLException("injected: PostgreSQL restarting", "08001");
            }

            @Override
            public Connection getConnection(String user, String password) throws SQLException {
                return getConnection();
            }
        };
        AgentService agents = new AgentService(jobs, new MachineStore(JdbcClient.create(down), clock), new AttemptReports(JdbcClient.create(dataSource), jobs, new SecureRandom()), new LeaseBroker(), manual,
                new AgentProperties("token", Duration.ofSeconds(2), null, null, null, null));
        Instant t = clock.instant();
        assertThatThrownBy(() -> agents.identify("fjm_unknown"))
                .isInstanceOf(DataAccessException.class);

        // and its agent is told to try again (503 with Retry-After), not that it did wrong (500)
        var json = JsonMapper.builder().build();
        var request = new MockHttpServletRequest("POST", "/agent/v1/heartbeat");
        request.addHeader("Authorization", "Bearer fjm_unknown");
        request.setContent(json.writeValueAsBytes(new Heartbeat("m-1", 1, List.of(), 0)));
        var answer = new MockHttpServletResponse();
        new HeartbeatServlet(agents, json).doPost(request, answer);
        assertThat(answer.getStatus()).isEqualTo(503);
        assertThat(answer.getHeader("Retry-After")).isEqualTo("1");
        assertThat(answer.getContentType()).isEqualTo("application/problem+json");

        clock.set(t.plusSeconds(3));
        manual.flush();
        assertThat(watermarks).as("held back to the agent gone unheard").containsExactly(t);
    }

    /** The real store's writes, failing while {@link #errorsLeft}, and the watermarks they write. */
    private HeartbeatWriter.Writes writes(List<Instant> watermarks) {
        return new HeartbeatWriter.Writes() {
            @Override
            public Set<String> available(Map<String, Instant> lastSeen) {
                if (errorsLeft.getAndDecrement() > 0) {
                    throw new DataAccessResourceFailureException("injected: PostgreSQL restarting");
                }
                return machines.heartbeatsAvailable(lastSeen);
            }

            @Override
            public void waiting(Map<String, Instant> lastSeen) {
                machines.heartbeats(lastSeen);
            }

            @Override
            public void watermark(Instant heardUntil) {
                watermarks.add(heardUntil);
            }
        };
    }
}
