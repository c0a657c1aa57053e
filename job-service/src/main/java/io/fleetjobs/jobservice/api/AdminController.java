package io.fleetjobs.jobservice.api;

import io.fleetjobs.store.Principal;
import io.fleetjobs.store.Tenant;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.support.CallerIdentity;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.Validator;
import java.math.BigDecimal;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Tenants and their API keys; admins only (the gateway checks the role too). */
@RestController
@RequestMapping("/api/v1/admin")
@Tag(name = "admin", description = "Tenants and API keys; admins only.")
class AdminController {
    private final TenantStore tenants;
    private final Validator validator;

    AdminController(TenantStore tenants, Validator validator) {
        this.tenants = tenants;
        this.validator = validator;
    }

    /**
     * What a tenant may hold at once; each null where unlimited. {@code maxLiveJobs}: jobs not yet finished;
     * {@code maxPriority}: the highest priority its jobs may ask for (priority orders the queue before fair share and
     * decides preemption).
     */
    record Quota(@PositiveOrZero BigDecimal cpu, @PositiveOrZero Long memoryMb, @PositiveOrZero Integer gpuCount,
            @PositiveOrZero Integer maxLiveJobs, @Min(0) @Max(1000) Integer maxPriority) {
        TenantStore.Quota stored() {
            return new TenantStore.Quota(cpu == null ? null : cpu.movePointRight(3).longValue(), memoryMb, gpuCount,
                    maxLiveJobs, maxPriority);
        }
    }

    /** A change of a tenant: a field left out is kept; a quota given replaces the old one whole. */
    record TenantChange(@Min(1) @Max(1000) Integer weight, @Valid Quota quota, Boolean allowPrivateWebhooks) {
    }

    record NewTenant(@NotNull @Pattern(regexp = "[A-Za-z0-9._-]{1,64}", message = "must be 1-64 of [A-Za-z0-9._-]") String name,
            @Min(1) @Max(1000) Integer weight, @Valid Quota quota) {
    }

    /**
     * What a tenant's jobs hold on machines now (SCHEDULED or RUNNING, each replica counted), what its quota and fair
     * share are weighed against.
     */
    record Usage(BigDecimal cpu, long memoryMb, int gpuCount, long jobs) {
        static Usage of(TenantStore.Held held) {
            return new Usage(BigDecimal.valueOf(held.cpuMillis(), 3).stripTrailingZeros(), held.memoryMb(), held.gpuCount(),
                    held.jobs());
        }
    }

    record TenantView(UUID id, String name, int weight, Quota quota, boolean allowPrivateWebhooks, Usage usage) {
        static TenantView of(Tenant t, TenantStore.Held held) {
            Quota q = t.quotaCpuMillis() == null && t.quotaMemoryMb() == null && t.quotaGpuCount() == null
                    && t.maxLiveJobs() == null && t.maxPriority() == null ? null
                    : new Quota(t.quotaCpuMillis() == null ? null : BigDecimal.valueOf(t.quotaCpuMillis(), 3).stripTrailingZeros(),
                            t.quotaMemoryMb(), t.quotaGpuCount(), t.maxLiveJobs(), t.maxPriority());
            return new TenantView(t.id(), t.name(), t.weight(), q, t.allowPrivateWebhooks(), Usage.of(held));
        }
    }

    record KeyView(UUID id, String key) {
    }

    @Operation(operationId = "createTenant", summary = "Create a tenant")
    @PostMapping("/tenants")
    ResponseEntity<TenantView> createTenant(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller,
            @RequestBody(required = false) NewTenant body) {
        requireAdmin(caller);
        if (body == null) {
            throw ApiException.badRequest("body", "a tenant is required");
        }
        validate(body);
        Tenant t = tenants.create(body.name(), body.weight() == null ? 1 : body.weight(),
                        body.quota() == null ? null : body.quota().stored())
                .orElseThrow(() -> ApiException.conflict("tenant " + body.name() + " exists"));
        return ResponseEntity.status(HttpStatus.CREATED).body(TenantView.of(t, TenantStore.Held.NOTHING));
    }

    @Operation(operationId = "listTenants", summary = "List tenants")
    @GetMapping("/tenants")
    JobView.Items<TenantView> listTenants(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller) {
        requireAdmin(caller);
        var held = tenants.held();
        return new JobView.Items<>(tenants.list().stream()
                .map(t -> TenantView.of(t, held.getOrDefault(t.id(), TenantStore.Held.NOTHING))).toList());
    }

    @Operation(operationId = "getTenant", summary = "Get a tenant")
    @GetMapping("/tenants/{name}")
    TenantView getTenant(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String name) {
        requireAdmin(caller);
        Tenant t = tenants.byName(name).orElseThrow(() -> ApiException.notFound("tenant " + name));
        return TenantView.of(t, tenants.held(t.id()));
    }

    /** Changes a tenant's weight or quota; jobs already over a lowered quota stay, new submits wait for room. */
    @Operation(operationId = "updateTenant", summary = "Change a tenant's weight or quota")
    @PatchMapping("/tenants/{name}")
    TenantView updateTenant(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String name,
            @RequestBody(required = false) TenantChange body) {
        requireAdmin(caller);
        if (body == null) {
            throw ApiException.badRequest("body", "a change is required");
        }
        validate(body);
        Tenant t = tenants.update(name, body.weight(), body.quota() == null ? null : body.quota().stored(),
                        body.allowPrivateWebhooks())
                .orElseThrow(() -> ApiException.notFound("tenant " + name));
        return TenantView.of(t, tenants.held(t.id()));
    }

    private void validate(Object body) {
        var violations = validator.validate(body);
        if (!violations.isEmpty()) {
            throw ApiException.invalid(violations.stream()
                    .map(v -> new ApiException.FieldError(FieldPaths.of(v), v.getMessage()))
                    .sorted(Comparator.comparing(ApiException.FieldError::field)).toList());
        }
    }

    @Operation(operationId = "issueApiKey", summary = "Issue an API key for a tenant")
    @PostMapping("/tenants/{name}/api-keys")
    ResponseEntity<KeyView> issueKey(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String name) {
        requireAdmin(caller);
        Tenant t = tenants.byName(name).orElseThrow(() -> ApiException.notFound("tenant " + name));
        var key = tenants.issueKey(t.id(), Principal.Role.USER);
        return ResponseEntity.status(HttpStatus.CREATED).body(new KeyView(key.id(), key.key()));
    }

    /** Revokes a key of the tenant: 204, also when it was revoked before; 404 when the tenant has no such key. */
    @Operation(operationId = "revokeApiKey", summary = "Revoke an API key")
    @DeleteMapping("/tenants/{name}/api-keys/{id}")
    ResponseEntity<Void> revokeKey(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String name,
            @PathVariable String id) {
        requireAdmin(caller);
        Tenant t = tenants.byName(name).orElseThrow(() -> ApiException.notFound("tenant " + name));
        UUID keyId;
        try {
            keyId = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("api key " + id);
        }
        if (!tenants.revokeKey(t.id(), keyId)) {
            throw ApiException.notFound("api key " + id + " of tenant " + name);
        }
        return ResponseEntity.noContent().build();
    }

    private static void requireAdmin(CallerIdentity caller) {
        if (!caller.isAdmin()) {
            throw new ApiException(HttpStatus.FORBIDDEN, "admin role required", List.of());
        }
    }
}
