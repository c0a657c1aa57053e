package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.store.MachineStore;
import java.net.URI;
import java.util.Objects;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/** What every agent call after the join checks, and how the agent API answers a refusal (problem+json). */
final class AgentCalls {
    private AgentCalls() {
    }

    /** The token of an {@code Authorization: Bearer …} header; null without one. */
    static String bearer(String authorization) {
        return authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
                ? authorization.substring(7).trim() : null;
    }

    /** A refusal: its status and what it says. */
    record Refusal(HttpStatus status, String detail) {
        ResponseEntity<ProblemDetail> entity() {
            return problem(status, detail);
        }
    }

    /**
     * Why a call must be refused, or null: no valid machine credential (401), one of another machine than the call
     * names (403), or of an incarnation that was superseded (409).
     */
    static Refusal refusalOf(Optional<MachineStore.Identity> identity, String machineId, long incarnation) {
        if (identity.isEmpty()) {
            return new Refusal(HttpStatus.UNAUTHORIZED, "a valid machine credential is required; join first");
        }
        MachineStore.Identity machine = identity.get();
        if (!Objects.equals(machine.machineId(), machineId)) {
            return new Refusal(HttpStatus.FORBIDDEN, "this credential belongs to machine " + machine.machineId());
        }
        if (machine.incarnation() != incarnation) {
            return new Refusal(HttpStatus.CONFLICT, "incarnation " + incarnation + " was superseded by "
                    + machine.incarnation() + "; join again");
        }
        return null;
    }

    /** {@link #refusalOf} as an answer, or null. */
    static ResponseEntity<ProblemDetail> refusal(Optional<MachineStore.Identity> identity, String machineId,
            long incarnation) {
        Refusal refused = refusalOf(identity, machineId, incarnation);
        return refused == null ? null : refused.entity();
    }

    /** 503 with {@code Retry-After}: the call was fine, the scheduler cannot serve it right now. */
    static ResponseEntity<ProblemDetail> unavailable(String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, detail);
        problem.setType(URI.create("about:blank"));
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1").body(problem);
    }

    /** 429 with {@code Retry-After}: this machine has as many such calls in progress as it may ({@link io.fleetjobs.support.PlacesPerKey}). */
    static ResponseEntity<ProblemDetail> tooMany(String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, detail);
        problem.setType(URI.create("about:blank"));
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).header("Retry-After", "1").body(problem);
    }

    /** A body that is not the call's message of the agent protocol. */
    static final class BadBody extends Exception {
        BadBody(String detail) {
            super(detail, null, false, false);
        }
    }

    /**
     * The body read as the call's message, once the caller is known: a stranger is refused (401) before any of what
     * it sent is read. What does not read as the message is {@link BadBody}, naming where it went wrong.
     */
    static <T> T read(JsonMapper json, byte[] body, Class<T> type, String what) throws BadBody {
        if (body == null || body.length == 0) {
            throw new BadBody("a " + what + " needs a body");
        }
        try {
            T message = json.readValue(body, type);
            if (message == null) {
                throw new BadBody("a " + what + " needs a body");
            }
            return message;
        } catch (JacksonException e) {
            String at = e.getPath().isEmpty() ? "" : " (at " + e.getPathReference() + ")";
            throw new BadBody("the body is not a " + what + " of the agent protocol: " + e.getOriginalMessage() + at);
        }
    }

    static ResponseEntity<ProblemDetail> problem(HttpStatus status, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create("about:blank"));
        return ResponseEntity.status(status).body(problem);
    }
}
