package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.support.PlacesPerKey;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.ServerHttpObservationFilter;
import tools.jackson.databind.json.JsonMapper;

/**
 * The heartbeat, answered by a servlet of its own rather than through Spring MVC: it is the agent API's one call
 * per machine and second, and in a W1 profile of the scheduler (JFR) a quarter of the service's CPU went to MVC's
 * dispatch, argument resolution and message conversion around it, more than the heartbeat's own work. The JSON is read
 * and written with the service's mapper; the filters (the admission bound, metrics) run as for any request, and
 * {@code http.server.requests} names the heartbeat's path.
 *
 * <p>The machine credential the join returned is required (401 before the body is read), and acts only for its
 * machine: a heartbeat naming another
 * machine is 403, one of a superseded incarnation 409, one the scheduler cannot answer now (its database busy or out of
 * reach, its heartbeat writer failing) 503 with {@code Retry-After}; a machine with {@link #PER_MACHINE}
 * heartbeats in progress already, 429 with {@code Retry-After} before the body is read; a body that is not a heartbeat
 * is 400. Every
 * refusal is problem+json, as from the rest of the API.
 */
public final class HeartbeatServlet extends HttpServlet {
    private final transient AgentService agents;
    private final transient JsonMapper json;
    /**
     * Heartbeats of one machine in progress at once: an agent sends one (two for a moment, when it gave up on one this
     * replica still holds); without a bound of its own, one credential could hold every place {@link HeartbeatAdmission}
     * has with held heartbeats, and every other agent was turned away unheard until its lease ran out.
     */
    static final int PER_MACHINE = 4;

    private final transient PlacesPerKey<String> inFlight = new PlacesPerKey<>(PER_MACHINE);

    public HeartbeatServlet(AgentService agents, JsonMapper json) {
        this.agents = agents;
        this.json = json;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ServerHttpObservationFilter.findObservationContext(request)
                .ifPresent(c -> c.setPathPattern(AgentProtocol.HEARTBEAT_PATH));
        try {
            // who is calling first: a stranger is refused before any of what it sent is read
            Optional<MachineStore.Identity> identity = agents.identify(AgentCalls.bearer(request.getHeader("Authorization")));
            if (identity.isEmpty()) {
                AgentCalls.Refusal stranger = AgentCalls.refusalOf(identity, null, 0);
                problem(request, response, stranger.status(), stranger.detail());
                return;
            }
            String machineId = identity.get().machineId();
            if (!inFlight.tryTake(machineId)) {
                response.setHeader("Retry-After", "1");
                problem(request, response, HttpStatus.TOO_MANY_REQUESTS, "machine " + machineId + " has "
                        + PER_MACHINE + " heartbeats in progress here already; an agent sends one at a time");
                return;
            }
            try {
                Heartbeat heartbeat;
                try {
                    heartbeat = AgentCalls.read(json, request.getInputStream().readAllBytes(), Heartbeat.class, "heartbeat");
                } catch (AgentCalls.BadBody e) {
                    problem(request, response, HttpStatus.BAD_REQUEST, e.getMessage());
                    return;
                }
                AgentCalls.Refusal refused = AgentCalls.refusalOf(identity, heartbeat.machineId(), heartbeat.incarnation());
                if (refused != null) {
                    problem(request, response, refused.status(), refused.detail());
                    return;
                }
                HeartbeatResponse answer = agents.heartbeat(machineId, heartbeat);
                write(response, HttpStatus.OK, "application/json", json.writeValueAsBytes(answer));
            } finally {
                inFlight.giveBack(machineId);
            }
        } catch (AgentService.Superseded e) {
            problem(request, response, HttpStatus.CONFLICT, e.getMessage());
        } catch (AgentService.NotRecorded | AgentService.Busy e) {
            unavailable(request, response, e.getMessage());
        } catch (TransientDataAccessException
                | DataAccessResourceFailureException e) {
            // PostgreSQL restarting or out of connections: the agent is to try again, not to think it did wrong
            unavailable(request, response, "the database cannot be reached right now; try again");
        }
    }

    private void unavailable(HttpServletRequest request, HttpServletResponse response, String detail) throws IOException {
        response.setHeader("Retry-After", "1");
        problem(request, response, HttpStatus.SERVICE_UNAVAILABLE, detail);
    }

    /** A problem+json answer, as Spring MVC writes a {@code ProblemDetail}. */
    private void problem(HttpServletRequest request, HttpServletResponse response, HttpStatus status, String detail)
            throws IOException {
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("type", "about:blank");
        problem.put("title", status.getReasonPhrase());
        problem.put("status", status.value());
        problem.put("detail", detail);
        problem.put("instance", request.getRequestURI());
        write(response, status, "application/problem+json", json.writeValueAsBytes(problem));
    }

    private static void write(HttpServletResponse response, HttpStatus status, String type, byte[] body)
            throws IOException {
        response.setStatus(status.value());
        response.setContentType(type);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
