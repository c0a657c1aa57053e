package io.fleetjobs.scheduler.service.api;

import io.fleetjobs.model.GpuDevice;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.store.MachineRow;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.support.CallerIdentity;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/machines}: the fleet as the database has it; admins only. The caller is the
 * identity the gateway signed ({@link io.fleetjobs.support.IdentityFilter}); the gateway checks the
 * role too.
 */
@RestController
class MachinesController {
    private final MachineStore machines;

    MachinesController(MachineStore machines) {
        this.machines = machines;
    }

    record Resources(BigDecimal cpu, long memoryMb, int gpuCount) {
    }

    record Machine(String id, String region, Map<String, String> labels, Resources capacity, Resources allocated,
            String gpuType, MachineStatus status, String statusReason, Instant lastHeartbeatAt, List<GpuDevice> gpus) {
        static Machine of(MachineRow m, List<GpuDevice> gpus) {
            return new Machine(m.id(), m.region(), m.labels(), new Resources(cores(m.cpuMillis()), m.memoryMb(), m.gpuCount()),
                    new Resources(cores(m.allocCpuMillis()), m.allocMemoryMb(), m.allocGpuCount()), m.gpuType(), m.status(),
                    m.statusReason(), m.lastHeartbeatAt(), gpus);
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
        return ResponseEntity.ok(new Items(machines.all().stream().sorted(Comparator.comparing(MachineRow::id))
                .map(m -> Machine.of(m, gpus.getOrDefault(m.id(), List.of()))).toList()));
    }

    /** Millicores as cores, plainly written: 2500 is 2.5, 16000 is 16. */
    static BigDecimal cores(long millis) {
        BigDecimal cores = BigDecimal.valueOf(millis, 3).stripTrailingZeros();
        return cores.scale() < 0 ? cores.setScale(0) : cores;
    }
}
