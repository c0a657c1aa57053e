package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import io.fleetjobs.store.MachineStore;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The agent API. Join takes the cluster join token; every other call takes the machine credential
 * the join returned, and acts only for that machine: a heartbeat naming another machine is 403.
 */
@RestController
class AgentController {
    private final AgentService agents;

    AgentController(AgentService agents) {
        this.agents = agents;
    }

    @PostMapping(AgentProtocol.JOIN_PATH)
    ResponseEntity<?> join(@RequestHeader(name = "Authorization", required = false) String authorization,
            @RequestBody JoinRequest request) {
        if (!agents.joinTokenMatches(AgentCalls.bearer(authorization))) {
            return AgentCalls.problem(HttpStatus.UNAUTHORIZED, "a valid cluster join token is required (Authorization: Bearer <token>)");
        }
        if (request.machineId() == null || !request.machineId().matches("[A-Za-z0-9._:-]{1,128}")
                || request.region() == null || request.region().isBlank()
                || request.cpuMillis() <= 0 || request.memoryMb() <= 0 || request.gpuCount() < 0) {
            return AgentCalls.problem(HttpStatus.BAD_REQUEST,
                    "a join names a machine id (1-128 of [A-Za-z0-9._:-]), a region, positive cpu and memory, gpus >= 0");
        }
        try {
            return ResponseEntity.ok(agents.join(request));
        } catch (AgentService.JoinRefused e) {
            return AgentCalls.problem(HttpStatus.CONFLICT, e.getMessage());
        }
    }

    @PostMapping(AgentProtocol.HEARTBEAT_PATH)
    ResponseEntity<?> heartbeat(@RequestHeader(name = "Authorization", required = false) String authorization,
            @RequestBody Heartbeat heartbeat) {
        try {
            var identity = agents.identify(AgentCalls.bearer(authorization));
            var refused = AgentCalls.refusal(identity, heartbeat.machineId(), heartbeat.incarnation());
            if (refused != null) {
                return refused;
            }
            MachineStore.Identity machine = identity.get();
            HeartbeatResponse response = agents.heartbeat(machine.machineId(), heartbeat);
            return ResponseEntity.ok(response);
        } catch (AgentService.Superseded e) {
            return AgentCalls.problem(HttpStatus.CONFLICT, e.getMessage());
        } catch (AgentService.NotRecorded | AgentService.Busy e) {
            return AgentCalls.unavailable(e.getMessage());
        } catch (org.springframework.dao.TransientDataAccessException
                | org.springframework.dao.DataAccessResourceFailureException e) {
            // PostgreSQL restarting or out of connections: the agent is to try again, not to think it did wrong
            return AgentCalls.unavailable("the database cannot be reached right now; try again");
        }
    }
}
