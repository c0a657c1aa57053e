package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import io.fleetjobs.scheduler.service.agent.AgentProperties;
import io.fleetjobs.scheduler.service.agent.AgentService;
import io.fleetjobs.scheduler.service.agent.HeartbeatWriter;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.testsupport.SettableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The cluster join token does not say which machine the caller is: a live machine is joined only with its credential. */
class MachineTakeoverTest {
    private final SettableClock clock = new SettableClock(Instant.parse("2026-12-01T00:00:00Z"));
    private final Fleet fleet = new Fleet(clock);
    private final AgentService agents = new AgentService(fleet.jobs, fleet.machines,
            new AttemptReports(fleet.jdbc, fleet.jobs, new SecureRandom()), new LeaseBroker(),
            new HeartbeatWriter(fleet.machines, Duration.ofSeconds(1), Duration.ofSeconds(1), clock),
            new AgentProperties("token", Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofSeconds(5), null,
                    Duration.ofSeconds(15)));

    @AfterEach
    void tearDown() {
        fleet.close();
    }

    private static JoinRequest join(String credential, long cpuMillis) {
        return new JoinRequest("node-7", "eu", Map.of(), cpuMillis, 8_192, 0, null, "sandbox", List.of(), credential);
    }

    @Test
    void aJoinAsALiveMachineWithoutItsCredentialIsRefusedAndChangesNothing() {
        JoinResponse first = agents.join(join(null, 4_000));
        clock.advance(Duration.ofSeconds(3));

        assertThatThrownBy(() -> agents.join(join(null, 96_000))).isInstanceOf(AgentService.JoinRefused.class)
                .hasMessageContaining("machine node-7 is live (heard 3 s ago)");
        assertThatThrownBy(() -> agents.join(join("fjm_a-guess", 96_000))).isInstanceOf(AgentService.JoinRefused.class);
        var machine = fleet.machines.get("node-7").orElseThrow();
        assertThat(machine.machine().capacity().cpuMillis()).as("the capacity a takeover claimed is not recorded").isEqualTo(4_000);
        assertThat(agents.identify(first.credential())).as("the machine's own credential still works")
                .hasValueSatisfying(id -> assertThat(id.incarnation()).isEqualTo(first.incarnation()));

        JoinResponse restarted = agents.join(join(first.credential(), 4_000));
        assertThat(restarted.incarnation()).as("its own agent, restarted, with its kept credential").isGreaterThan(first.incarnation());
        assertThat(agents.identify(first.credential())).isEmpty();
    }

    @Test
    void aMachineGoneSilentPastTheLostTtlOrResetMayBeJoinedAfresh() {
        agents.join(join(null, 4_000));
        clock.advance(Duration.ofSeconds(16));
        assertThat(agents.join(join(null, 4_000)).incarnation()).isEqualTo(2);

        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> agents.join(join(null, 4_000))).isInstanceOf(AgentService.JoinRefused.class);
        fleet.machines.statuses().reset("node-7", "reset by ops: disk replaced");
        assertThat(fleet.machines.get("node-7").orElseThrow().status()).isEqualTo(MachineStatus.LOST);
        assertThat(agents.join(join(null, 4_000)).incarnation()).isEqualTo(3);
    }
}
