package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.scheduler.service.agent.AgentProperties;
import io.fleetjobs.scheduler.service.agent.AgentService;
import io.fleetjobs.scheduler.service.agent.HeartbeatWriter;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import io.fleetjobs.store.AttemptReports;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A machine joining tells the scheduler that the fleet changed, once its row is committed. */
class FleetChangeTest {
    private final Fleet fleet = new Fleet(InstantSource.system());

    @AfterEach
    void tearDown() {
        fleet.close();
    }

    @Test
    void aJoinTellsTheSchedulerAfterTheMachineIsThere() {
        AtomicInteger told = new AtomicInteger();
        AtomicInteger machinesWhenTold = new AtomicInteger(-1);
        AgentService agents = new AgentService(fleet.jobs, fleet.machines,
                new AttemptReports(fleet.jdbc, fleet.jobs, new SecureRandom()), new LeaseBroker(),
                new HeartbeatWriter(fleet.machines, Duration.ofSeconds(1), Duration.ofSeconds(1), InstantSource.system()),
                new AgentProperties("token", Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(30), null, null),
                () -> {
                    told.incrementAndGet();
                    machinesWhenTold.set((int) fleet.count("select count(*) from machines"));
                });

        agents.join(new JoinRequest("h100-1", "us", Map.of(), 64_000, 262_144, 8, "H100"));

        assertThat(told).hasValue(1);
        assertThat(machinesWhenTold).as("committed before the scheduler looks").hasValue(1);
    }
}
