package io.fleetjobs.store;

import java.util.UUID;

/** Who is calling: a tenant, in a role. */
public record Principal(UUID tenantId, String tenantName, Role role) {
    public enum Role { ADMIN, USER }

    public boolean isAdmin() {
        return role == Role.ADMIN;
    }
}
