package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
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
    private final HeartbeatWriter writer = new HeartbeatWriter(fleet.machines, Duration.ofSeconds(1), Duration.ofSeconds(1),
            clock);
    private final AgentService agents = new AgentService(fleet.jobs, fleet.machines,
            new AttemptReports(fleet.jdbc, fleet.jobs, new SecureRandom()), new LeaseBroker(), writer,
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
        assertThat(agents.join(join(null, 4_000)).incarnation()).as("one for the reset, one for the join").isEqualTo(4);
    }

    @Test
    void aResetMachineIsNotHeardOnItsOldCredentialAndComesBackOnlyByAFreshJoin() {
        JoinResponse first = agents.join(join(null, 4_000));
        assertThat(agents.identify(first.credential())).as("known, and kept in memory").isPresent();
        Instant joinedAt = fleet.machines.get("node-7").orElseThrow().lastHeartbeatAt();

        fleet.machines.statuses().reset("node-7", "reset by ops: disk lost");
        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> agents.heartbeat("node-7", new Heartbeat("node-7", first.incarnation(), List.of(), 0)))
                .as("the old incarnation's heartbeat, though this replica still knew its credential")
                .isInstanceOf(AgentService.Superseded.class);
        writer.flush();
        clock.advance(Duration.ofSeconds(5));
        writer.flush(); // past the writer's longest delay: a heartbeat it could not write is given up, not kept
        var machine = fleet.machines.get("node-7").orElseThrow();
        assertThat(machine.machine().status()).isEqualTo(MachineStatus.LOST);
        assertThat(machine.lastHeartbeatAt()).as("not heard: the reconciler would make it READY again").isEqualTo(joinedAt);
        assertThat(agents.identify(first.credential())).isEmpty();

        JoinResponse again = agents.join(join(null, 4_000));
        assertThat(again.incarnation()).isGreaterThan(first.incarnation() + 1);
        assertThat(fleet.machines.get("node-7").orElseThrow().machine().status()).isEqualTo(MachineStatus.READY);
        clock.advance(Duration.ofSeconds(1));
        agents.heartbeat("node-7", new Heartbeat("node-7", again.incarnation(), List.of(), 0));
        writer.flush();
        assertThat(fleet.machines.get("node-7").orElseThrow().lastHeartbeatAt()).as("heard again once joined")
                .isEqualTo(clock.instant());
    }
}
