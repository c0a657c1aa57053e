package io.fleetjobs.scheduler.service.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.GpuDevice;
import io.fleetjobs.model.MachineOperation;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.model.StorableText;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineRow;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.support.CallerIdentity;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /api/v1/machines}: the fleet as the database has it; admins only. The caller is the
 * identity the gateway signed ({@link io.fleetjobs.support.IdentityFilter}); the gateway checks the
 * role too.
 */
@RestController
class MachinesController {
    private static final Logger log = LoggerFactory.getLogger(MachinesController.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final MachineStore machines;
    private final JobStore jobs;
    private final AttemptReports reports;

    MachinesController(MachineStore machines, JobStore jobs, AttemptReports reports) {
        this.machines = machines;
        this.jobs = jobs;
        this.reports = reports;
    }

    record Resources(BigDecimal cpu, long memoryMb, int gpuCount) {
        static Resources of(Amounts a) {
            return new Resources(cores(a.cpuMillis()), a.memoryMb(), a.gpus());
        }
    }

    record Machine(String id, String region, Map<String, String> labels, Resources capacity, Resources allocated,
            String gpuType, MachineStatus status, String statusReason, Instant lastHeartbeatAt, List<GpuDevice> gpus,
            String isolation,
            @com.fasterxml.jackson.annotation.JsonInclude(JsonInclude.Include.NON_NULL)
            List<String> isolationGaps, int liveAttempts, int maxLiveAttempts) {
        /** @param gaps what its sandbox does not hold, as its agent said; null when it did not say (then omitted) */
        static Machine of(MachineRow row, List<GpuDevice> gpus, List<String> gaps) {
            FleetMachine m = row.machine();
            return new Machine(m.id(), m.region(), m.labels(), Resources.of(m.capacity()), Resources.of(m.allocated()),
                    m.gpuType(), m.status(), row.statusReason(), row.lastHeartbeatAt(), gpus,
                    row.isolation() == null ? "none" : row.isolation(), row.sandboxed() ? gaps : null, m.liveAttempts(),
                    m.maxLiveAttempts());
        }
    }

    record Items(List<Machine> items) {
    }

    @GetMapping("/api/v1/machines")
    ResponseEntity<?> list(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller) {
        if (!caller.isAdmin()) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.FORBIDDEN, "admin role required");
            problem.setType(URI.create("about:blank"));
            return ResponseEntity.status(HttpStatus.FORBIDDEN).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
        }
        Map<String, List<GpuDevice>> gpus = machines.gpusByMachine();
        Map<String, List<String>> gaps = machines.isolationGapsByMachine();
        return ResponseEntity.ok(new Items(machines.all().stream().sorted(Comparator.comparing(MachineRow::id))
                .map(m -> Machine.of(m, gpus.getOrDefault(m.id(), List.of()), gaps.get(m.id()))).toList()));
    }

    /**
     * {@code POST /api/v1/machines/{id}/drain|cordon|uncordon} with {@code {"reason": "…"}}: an operator takes a
     * machine out of placement or puts it back ({@link MachineOperation}); running attempts are left alone.
     */
    @PostMapping("/api/v1/machines/{id}/{operation:drain|cordon|uncordon}")
    ResponseEntity<?> operate(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String id,
            @PathVariable String operation, @RequestBody(required = false) String body) {
        if (!caller.isAdmin()) {
            return problem(HttpStatus.FORBIDDEN, "admin role required", null);
        }
        String reason;
        switch (readReason(body)) {
            case ReasonBody.Fault fault -> {
                return badBody(fault);
            }
            case ReasonBody.Reason given -> reason = given.text();
        }
        MachineOperation op = MachineOperation.valueOf(operation.toUpperCase(Locale.ROOT));
        var machine = machines.get(id);
        if (machine.isEmpty()) {
            return problem(HttpStatus.NOT_FOUND, "no machine " + id, null);
        }
        var decision = op.decide(machine.get().status());
        return switch (decision) {
            case MachineOperation.Decision.Refused r -> problem(HttpStatus.CONFLICT, "cannot " + op.path() + " " + id + ": "
                    + r.reason(), null);
            case MachineOperation.Decision.Unchanged u -> ResponseEntity.ok(view(machine.get()));
            case MachineOperation.Decision.Change c -> {
                String said = op.path() + "ed by " + caller.tenantName() + ": " + reason;
                log.info("machine {} {}", id, said);
                yield ResponseEntity.ok(view(machines.statuses().operate(id, c.to(), said).orElseThrow()));
            }
        };
    }

    /**
     * {@code POST /api/v1/machines/{id}/reset} with {@code {"reason": "…"}}: the machine's disk was lost, so its agent
     * cannot present the credential a join for a live machine needs. Its attempts end MACHINE_LOST (retried
     * elsewhere on the platform's budget), its credential is forgotten and it is LOST until an agent joins afresh.
     */
    @PostMapping("/api/v1/machines/{id}/reset")
    ResponseEntity<?> reset(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String id,
            @RequestBody(required = false) String body) {
        if (!caller.isAdmin()) {
            return problem(HttpStatus.FORBIDDEN, "admin role required", null);
        }
        String reason;
        switch (readReason(body)) {
            case ReasonBody.Fault fault -> {
                return badBody(fault);
            }
            case ReasonBody.Reason given -> reason = given.text();
        }
        if (machines.get(id).isEmpty()) {
            return problem(HttpStatus.NOT_FOUND, "no machine " + id, null);
        }
        String said = "reset by " + caller.tenantName() + ": " + reason;
        jobs.inTransaction(() -> {
            reports.endLiveAttempts(id, FailureReason.MACHINE_LOST);
            return machines.statuses().reset(id, said);
        });
        log.warn("machine {} {}", id, said);
        return ResponseEntity.ok(view(machines.get(id).orElseThrow()));
    }

    /** An operation's body read: its reason, or the field at fault and what is wrong with it. */
    sealed interface ReasonBody {
        record Reason(String text) implements ReasonBody {
        }

        record Fault(String field, String message) implements ReasonBody {
        }
    }

    /**
     * The body {@code {"reason": "…"}}: a non-blank reason of at most 500 characters, without NUL (which PostgreSQL's
     * text cannot hold), and no other field (an unknown one, a misspelt {@code "reson"} among them, was ignored).
     */
    static ReasonBody readReason(String body) {
        JsonNode json;
        try {
            json = body == null || body.isBlank() ? null : JSON.readTree(body);
        } catch (JacksonException e) {
            return new ReasonBody.Fault("body", "is not well-formed JSON");
        }
        if (json != null && !json.isObject()) {
            return new ReasonBody.Fault("body", "must be a JSON object: {\"reason\": \"...\"}");
        }
        if (json != null) {
            for (String name : json.propertyNames()) {
                if (!name.equals("reason")) {
                    return new ReasonBody.Fault(StorableText.hasNul(name) ? "body" : name, "unknown field");
                }
            }
        }
        JsonNode field = json == null ? null : json.get("reason");
        String reason = field == null || !field.isString() ? null : field.asString().strip();
        if (reason != null && StorableText.hasNul(reason)) {
            return new ReasonBody.Fault("reason", StorableText.NUL_REFUSED);
        }
        if (reason == null || reason.isEmpty() || reason.length() > 500) {
            return new ReasonBody.Fault("reason", "must say why, in 1 to 500 characters");
        }
        return new ReasonBody.Reason(reason);
    }

    private static ResponseEntity<ProblemDetail> badBody(ReasonBody.Fault fault) {
        return problem(HttpStatus.BAD_REQUEST, "the request is not valid", Map.of("field", fault.field(),
                "message", fault.message()));
    }

    private Machine view(MachineRow m) {
        return Machine.of(m, machines.gpus(m.id()), machines.isolationGaps(m.id()));
    }

    private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String detail, Map<String, String> error) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create("about:blank"));
        if (error != null) {
            problem.setProperty("errors", List.of(error));
        }
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    /** Millicores as cores, plainly written: 2500 is 2.5, 16000 is 16. */
    static BigDecimal cores(long millis) {
        BigDecimal cores = BigDecimal.valueOf(millis, 3).stripTrailingZeros();
        return cores.scale() < 0 ? cores.setScale(0) : cores;
    }
}
