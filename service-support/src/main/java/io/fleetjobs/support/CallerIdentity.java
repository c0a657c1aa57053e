package io.fleetjobs.support;

import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Who a request to a service comes from, as the gateway vouches for it: a tenant, in a role. A
 * service takes it from the request attribute {@link #ATTRIBUTE}, which {@link IdentityFilter} sets
 * only after the signature checked out.
 */
public record CallerIdentity(UUID tenantId, String tenantName, Role role) {
    /** The request attribute that holds the verified caller. */
    public static final String ATTRIBUTE = "io.fleetjobs.caller";

    /** Tenant names as the admin API allows them; nothing in them can break the header's format. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public enum Role { ADMIN, USER }

    public CallerIdentity {
        Objects.requireNonNull(tenantId, "tenantId");
        Objects.requireNonNull(role, "role");
        if (tenantName == null || !NAME.matcher(tenantName).matches()) {
            throw new IllegalArgumentException("a tenant name is 1-64 of [A-Za-z0-9._-]: " + tenantName);
        }
    }

    public boolean isAdmin() {
        return role == Role.ADMIN;
    }
}
