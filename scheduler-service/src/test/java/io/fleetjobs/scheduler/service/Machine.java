package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.service.agent.AgentProperties;
import io.fleetjobs.scheduler.service.agent.AgentService;
import io.fleetjobs.scheduler.service.agent.HeartbeatWriter;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.PlacementStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A tenant, a machine {@code name}-1 joined with a fresh heartbeat, and this replica's agent service and cycle. */
record Machine(UUID tenant, String id, long incarnation, LeaseBroker broker, AgentService agents, SchedulerCycle cycle) {
    /** A heartbeat with these reports that is not held. */
    HeartbeatResponse beat(List<AttemptReport> reports) {
        return agents.heartbeat(id, new Heartbeat(id, incarnation, reports, 0));
    }

    static Machine joined(Fleet fleet, String name, String region, int credential) {
        UUID tenant = fleet.tenant(name);
        long incarnation = fleet.machines.join(name + "-1", region, Map.of(), null, 8_000, 16_384, 0,
                new byte[] {(byte) credential});
        fleet.machines.heartbeats(Map.of(name + "-1", InstantSource.system().instant()));
        LeaseBroker broker = new LeaseBroker();
        AgentService agents = new AgentService(fleet.jobs, fleet.machines,
                new AttemptReports(fleet.jdbc, fleet.jobs, new SecureRandom()), broker,
                new HeartbeatWriter(fleet.machines, Duration.ofSeconds(1), Duration.ofSeconds(1), InstantSource.system()),
                new AgentProperties("token", Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(30), null, null));
        SchedulerCycle cycle = new SchedulerCycle(fleet.jobs, new PlacementStore(fleet.jdbc, fleet.jobs), new PlacementEngine(),
                SchedulerProperties.defaults(), new SimpleMeterRegistry(), broker::signalAll);
        return new Machine(tenant, name + "-1", incarnation, broker, agents, cycle);
    }
}
