package io.fleetjobs.jobservice.api;

import io.fleetjobs.store.TenantStore;
import io.fleetjobs.support.CallerIdentity;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/tenant}: the caller's own tenant as an admin sees it, its weight, quota and what its jobs hold
 * now, so that a user can tell "my jobs wait because I am at my quota" from "the fleet is full".
 */
@RestController
@Tag(name = "jobs", description = "Jobs of the caller's tenant.")
class OwnTenantController {
    private final TenantStore tenants;

    OwnTenantController(TenantStore tenants) {
        this.tenants = tenants;
    }

    @Operation(operationId = "getOwnTenant", summary = "The caller's tenant: its weight, quota and what its jobs hold")
    @GetMapping("/api/v1/tenant")
    AdminController.TenantView own(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller) {
        var tenant = tenants.byId(caller.tenantId())
                .orElseThrow(() -> ApiException.notFound("tenant " + caller.tenantName()));
        return AdminController.TenantView.of(tenant, tenants.held(tenant.id()));
    }
}
