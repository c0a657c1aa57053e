package io.fleetjobs.scheduler.service.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.testsupport.TestDatabases;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * Heartbeats do database work a bounded number at once: one past the bound waits a moment for its turn, then is
 * answered "busy" (503), but is heard all the same, so that a loaded scheduler sheds its load without piling up
 * requests (the heap) and without making a live machine look silent.
 */
class HeartbeatAdmissionTest {
    HikariDataSource dataSource;
    MachineStore machines;
    HeartbeatWriter writer;
    AgentService agents;

    @BeforeEach
    void aDatabase() {
        dataSource = TestDatabases.create().dataSource(2);
        JdbcClient jdbc = JdbcClient.create(dataSource);
        machines = new MachineStore(jdbc, InstantSource.system());
        JobStore jobs = new JobStore(jdbc, new DataSourceTransactionManager(dataSource), InstantSource.system(), null);
        machines.register("m-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        writer = new HeartbeatWriter(machines, Duration.ofMillis(200), Duration.ofSeconds(1), InstantSource.system());
        agents = new AgentService(jobs, machines, new AttemptReports(jdbc, jobs, new SecureRandom()), new LeaseBroker(),
                writer, new AgentProperties("token", Duration.ofSeconds(2), null, null, null, null));
        agents.workAtOnce(1);
    }

    @AfterEach
    void stop() {
        dataSource.close();
    }

    @Test
    void aHeartbeatPastTheBoundIsHeardButAnsweredBusyAndOnceThereIsRoomItIsAnswered() throws Exception {
        Heartbeat beat = new Heartbeat("m-1", machines.incarnation("m-1").orElseThrow(), List.of(), 0);
        String known = agents.join(new AgentProtocol.JoinRequest("m-2", "eu", Map.of(), 4_000,
                8_192, 0, null, "sandbox", List.of(), null)).credential();
        assertThat(agents.identify(known)).isPresent();
        CountDownLatch occupied = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Object> other = CompletableFuture.supplyAsync(() -> agents.working(() -> {
            occupied.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        occupied.await();

        // a machine already known is identified without a turn at the database, so its heartbeat is recorded
        assertThat(agents.identify(known)).hasValueSatisfying(id -> assertThat(id.machineId()).isEqualTo("m-2"));
        assertThatThrownBy(() -> agents.identify("fjm_not-yet-known")).isInstanceOf(AgentService.Busy.class);

        Instant sent = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        assertThatThrownBy(() -> agents.heartbeat("m-1", beat)).isInstanceOf(AgentService.Busy.class);
        writer.flush();
        assertThat(machines.get("m-1").orElseThrow().lastHeartbeatAt()).as("heard, though not answered").isAfterOrEqualTo(sent);

        release.countDown();
        other.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> agents.heartbeat("m-1", beat).leaseTtlMs() == 6_000);
    }

    @Test
    void aHeartbeatPastTheLimitInProgressIsHeardFromItsHeaderAndAnswered503WithoutReadingItsBody() throws Exception {
        String credential = agents.join(new AgentProtocol.JoinRequest("m-3", "eu", Map.of(),
                4_000, 8_192, 0, null, "sandbox", List.of(), null)).credential();
        assertThat(agents.identify(credential)).isPresent(); // known in memory, as every heartbeat after the first
        HeartbeatAdmission admission = new HeartbeatAdmission(1, agents);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> {
            try {
                admission.doFilter(heartbeatRequest(credential), new MockHttpServletResponse(), (req, res) -> {
                    inside.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        inside.await();

        Instant sent = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        MockHttpServletRequest second = heartbeatRequest(credential);
        MockHttpServletResponse answer = new MockHttpServletResponse();
        admission.doFilter(second, answer, (req, res) -> {
            throw new AssertionError("a heartbeat past the limit went on to be served");
        });
        assertThat(answer.getStatus()).isEqualTo(503);
        assertThat(answer.getHeader("Retry-After")).isEqualTo("1");
        assertThat(answer.getContentAsString()).contains("was heard");
        writer.flush();
        assertThat(machines.get("m-3").orElseThrow().lastHeartbeatAt()).as("heard, though not let in").isAfterOrEqualTo(sent);

        release.countDown();
        first.get();
        assertThat(admission.inProgress()).isZero();
        MockHttpServletResponse later = new MockHttpServletResponse();
        boolean[] served = {false};
        admission.doFilter(heartbeatRequest(credential), later, (req, res) -> served[0] = true);
        assertThat(served[0]).as("once there is room again, a heartbeat is served").isTrue();
    }

    private static MockHttpServletRequest heartbeatRequest(String credential) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/agent/v1/heartbeat");
        request.addHeader("Authorization", "Bearer " + credential);
        return request;
    }
}
