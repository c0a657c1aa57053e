package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.StorableText;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * The agent API's join, which takes the cluster join token; every other call takes the machine credential the join
 * returned, and acts only for that machine (the heartbeat: {@link HeartbeatServlet}; logs: {@link AgentLogsController}).
 */
@RestController
class AgentController {
    private final AgentService agents;
    private final JsonMapper json;

    AgentController(AgentService agents, JsonMapper json) {
        this.agents = agents;
        this.json = json;
    }

    @PostMapping(AgentProtocol.JOIN_PATH)
    ResponseEntity<?> join(@RequestHeader(name = "Authorization", required = false) String authorization,
            @RequestBody(required = false) byte[] body) {
        if (!agents.joinTokenMatches(AgentCalls.bearer(authorization))) {
            return AgentCalls.problem(HttpStatus.UNAUTHORIZED, "a valid cluster join token is required (Authorization: Bearer <token>)");
        }
        JoinRequest request;
        try {
            request = AgentCalls.read(json, body, JoinRequest.class, "join");
        } catch (AgentCalls.BadBody e) {
            return AgentCalls.problem(HttpStatus.BAD_REQUEST, e.getMessage());
        }
        if (request.machineId() == null || !request.machineId().matches("[A-Za-z0-9._:-]{1,128}")
                || request.region() == null || request.region().isBlank()
                || request.cpuMillis() <= 0 || request.memoryMb() <= 0 || request.gpuCount() < 0
                || (request.maxLiveAttempts() != null && request.maxLiveAttempts() < 1)) {
            return AgentCalls.problem(HttpStatus.BAD_REQUEST, "a join names a machine id (1-128 of [A-Za-z0-9._:-]),"
                    + " a region, positive cpu and memory, gpus >= 0, and maxLiveAttempts >= 1 if it says");
        }
        if (request.isolationGaps() != null && (request.isolationGaps().size() > 16
                || !request.isolationGaps().stream().allMatch(g -> g != null && g.matches("[a-z][a-z0-9-]{0,39}")))) {
            return AgentCalls.problem(HttpStatus.BAD_REQUEST, "a join's isolationGaps are at most 16 names of"
                    + " [a-z0-9-] (1-40, a letter first)");
        }
        String tooLarge = tooLarge(request);
        if (tooLarge != null) {
            return AgentCalls.problem(HttpStatus.BAD_REQUEST, "a join's " + tooLarge);
        }
        if (holdsNul(request)) {
            return AgentCalls.problem(HttpStatus.BAD_REQUEST, "a join's text (region, labels, GPU type and devices, "
                    + "isolation, address) " + StorableText.NUL_REFUSED);
        }
        try {
            return ResponseEntity.ok(agents.join(request));
        } catch (AgentService.JoinRefused e) {
            return AgentCalls.problem(HttpStatus.CONFLICT, e.getMessage());
        }
    }

    /** The most GPUs a join may offer: a real machine has 8 or 16, and each counted GPU is an object at every placement. */
    static final int MAX_GPUS = 1024;

    /**
     * What of the join is past its bound, or null: a join with the cluster's token alone offered a hundred million
     * GPUs, and every GPU placement there, and the machines list, then built an object for each and ran out of memory.
     */
    static String tooLarge(JoinRequest request) {
        if (request.gpuCount() > MAX_GPUS || (request.gpus() != null && request.gpus().size() > MAX_GPUS)) {
            return "gpus are at most " + MAX_GPUS;
        }
        if (request.labels() != null && (request.labels().size() > 64 || request.labels().entrySet().stream()
                .anyMatch(e -> e.getKey() == null || e.getKey().length() > 128
                        || (e.getValue() != null && e.getValue().length() > 256)))) {
            return "labels are at most 64, each a name of at most 128 characters and a value of at most 256";
        }
        for (String text : new String[] {request.region(), request.gpuType(), request.isolation(), request.address()}) {
            if (text != null && text.length() > 256) {
                return "region, GPU type, isolation and address are at most 256 characters each";
            }
        }
        return null;
    }

    /** Whether any text of the join holds NUL, which PostgreSQL's text cannot store (the join failed with a 500). */
    static boolean holdsNul(JoinRequest request) {
        List<String> texts = new ArrayList<>(Arrays.asList(request.region(),
                request.gpuType(), request.isolation(), request.address(), request.credential()));
        if (request.labels() != null) {
            request.labels().forEach((k, v) -> {
                texts.add(k);
                texts.add(v);
            });
        }
        if (request.gpus() != null) {
            request.gpus().forEach(g -> {
                if (g != null) {
                    texts.add(g.uuid());
                    texts.add(g.model());
                }
            });
        }
        return texts.stream().anyMatch(StorableText::hasNul);
    }
}
