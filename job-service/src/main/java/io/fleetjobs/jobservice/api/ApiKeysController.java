package io.fleetjobs.jobservice.api;

import io.fleetjobs.store.ApiKeyStore;
import io.fleetjobs.store.Principal;
import io.fleetjobs.store.Tenant;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.support.CallerIdentity;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RestController;

/** A tenant's API keys as an operator sees them: never a key, nor its hash. Issuing and revoking: AdminController. */
@RestController
@Tag(name = "admin", description = "Tenants and API keys; admins only.")
class ApiKeysController {
    private final TenantStore tenants;
    private final ApiKeyStore keys;

    ApiKeysController(TenantStore tenants, ApiKeyStore keys) {
        this.tenants = tenants;
        this.keys = keys;
    }

    /** {@code lastUsedAt}: as the gateway recorded it, late by up to about a minute; null when never used. */
    record ApiKeyView(UUID id, Principal.Role role, Instant createdAt, Instant lastUsedAt, boolean revoked,
            Instant revokedAt, boolean bootstrap) {
        static ApiKeyView of(ApiKeyStore.KeyInfo k) {
            return new ApiKeyView(k.id(), k.role(), k.createdAt(), k.lastUsedAt(), k.revokedAt() != null, k.revokedAt(),
                    k.bootstrap());
        }
    }

    @Operation(operationId = "listApiKeys", summary = "List a tenant's API keys")
    @GetMapping("/api/v1/admin/tenants/{name}/api-keys")
    JobView.Items<ApiKeyView> list(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String name) {
        if (!caller.isAdmin()) {
            throw new ApiException(HttpStatus.FORBIDDEN, "admin role required", List.of());
        }
        Tenant t = tenants.byName(name).orElseThrow(() -> ApiException.notFound("tenant " + name));
        return new JobView.Items<>(keys.list(t.id()).stream().map(ApiKeyView::of).toList());
    }
}
