package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.LogPush;
import io.fleetjobs.model.agent.AgentProtocol.LogPushResponse;
import io.fleetjobs.model.logs.LogLimits;
import io.fleetjobs.model.logs.LogStream;
import io.fleetjobs.store.LogStreams;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.support.PlacesPerKey;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * Where agents push the output of followed streams (live logs): with the machine credential, for the machine's
 * current incarnation, and fenced by the attempt's lease epoch ({@link LogStreams#push}): an agent that no longer
 * holds the attempt stores nothing (409). The answer says whether anyone still follows the stream.
 */
@RestController
class AgentLogsController {
    private final AgentService agents;
    private final LogStreams logs;
    private final JsonMapper json;
    /** Log pushes of one machine in progress at once: an agent pushes one at a time; pushes use the service's pool. */
    static final int PUSHES_PER_MACHINE = 2;

    private final PlacesPerKey<String> inFlight = new PlacesPerKey<>(PUSHES_PER_MACHINE);

    AgentLogsController(AgentService agents, LogStreams logs, JsonMapper json) {
        this.agents = agents;
        this.logs = logs;
        this.json = json;
    }

    @PostMapping(AgentProtocol.LOGS_PATH)
    ResponseEntity<?> push(@RequestHeader(name = "Authorization", required = false) String authorization,
            @RequestBody(required = false) byte[] body) {
        Optional<MachineStore.Identity> identity;
        try {
            identity = agents.identify(AgentCalls.bearer(authorization));
        } catch (AgentService.Busy e) {
            return AgentCalls.unavailable(e.getMessage());
        }
        if (identity.isEmpty()) {
            return AgentCalls.refusal(identity, null, 0);
        }
        LogPush push;
        try {
            push = AgentCalls.read(json, body, LogPush.class, "log push");
        } catch (AgentCalls.BadBody e) {
            return AgentCalls.problem(HttpStatus.BAD_REQUEST, e.getMessage());
        }
        var refused = AgentCalls.refusal(identity, push.machineId(), push.incarnation());
        if (refused != null) {
            return refused;
        }
        MachineStore.Identity machine = identity.get();
        if (!inFlight.tryTake(machine.machineId())) {
            return AgentCalls.tooMany("machine " + machine.machineId() + " has " + PUSHES_PER_MACHINE
                    + " log pushes in progress here already; an agent pushes one at a time");
        }
        try {
            return store(machine, push);
        } finally {
            inFlight.giveBack(machine.machineId());
        }
    }

    private ResponseEntity<?> store(MachineStore.Identity machine, LogPush push) {
        if (push.jobId() == null || push.attempt() < 1 || LogStream.ofWire(push.stream()).isEmpty() || push.offset() < 0
                || push.offset() > LogLimits.MAX_OFFSET || push.data() == null
                || push.data().length > LogLimits.PUSH_MAX_BYTES) {
            return AgentCalls.problem(HttpStatus.BAD_REQUEST, "a push names a job, an attempt >= 1, a stream (stdout or stderr), an"
                    + " offset from 0 to " + LogLimits.MAX_OFFSET + " and at most " + LogLimits.PUSH_MAX_BYTES + " bytes of data");
        }
        return switch (logs.push(machine.machineId(), push.incarnation(), push.jobId(), push.attempt(), push.epoch(),
                push.stream(), push.offset(), push.data(), push.eof())) {
            case FENCED -> AgentCalls.problem(HttpStatus.CONFLICT, "attempt " + push.attempt() + " of job " + push.jobId()
                    + " is not this machine's with lease epoch " + push.epoch() + "; nothing stored");
            case FOLLOWED -> ResponseEntity.ok(new LogPushResponse(true));
            case NOT_FOLLOWED -> ResponseEntity.ok(new LogPushResponse(false));
        };
    }
}
