package io.fleetjobs.jobservice.config;

import io.fleetjobs.store.TenantStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * On start, makes {@code JOBS_BOOTSTRAP_ADMIN_TOKEN} (when set) an admin key of tenant "admin" and revokes the keys
 * earlier values made; without it, revokes every key the variable made. Idempotent. job-service, which owns the
 * tenants, decides the removal; the gateway installs the key too, but never revokes for a variable it lacks.
 */
@Component
class BootstrapAdmin implements ApplicationRunner {
    private static final Logger log = LoggerFactory.getLogger(BootstrapAdmin.class);

    private final TenantStore tenants;
    private final String token;

    BootstrapAdmin(TenantStore tenants, @Value("${jobs.bootstrap-admin-token:}") String token) {
        this.tenants = tenants;
        this.token = token;
    }

    @Override
    public void run(ApplicationArguments args) {
        if (!token.isBlank()) {
            tenants.bootstrapAdmin("admin", token);
            log.info("bootstrap admin key installed for tenant 'admin'");
        } else {
            int revoked = tenants.revokeBootstrapKeys();
            if (revoked > 0) {
                log.warn("JOBS_BOOTSTRAP_ADMIN_TOKEN is not set: revoked the {} admin keys it made before", revoked);
            }
        }
    }
}
