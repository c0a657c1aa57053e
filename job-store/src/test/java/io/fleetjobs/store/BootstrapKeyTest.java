package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The key JOBS_BOOTSTRAP_ADMIN_TOKEN makes works only while the variable says it: changed or removed, it is revoked. */
class BootstrapKeyTest {
    private static StoreFixture f;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void aChangedVariableRevokesTheOldKeyAndARemovedOneRevokesEveryBootstrapKey() {
        TenantStore tenants = f.tenants;
        String issued = tenants.issueKey(f.tenant, Principal.Role.ADMIN).key();
        tenants.bootstrapAdmin("admin", "first-bootstrap-token");
        tenants.bootstrapAdmin("admin", "first-bootstrap-token"); // a second service with the same value: idempotent
        assertThat(tenants.authenticate("first-bootstrap-token")).isPresent();

        tenants.bootstrapAdmin("admin", "second-bootstrap-token");
        assertThat(tenants.authenticate("first-bootstrap-token")).as("the old value's key").isEmpty();
        assertThat(tenants.authenticate("second-bootstrap-token")).isPresent();

        assertThat(tenants.revokeBootstrapKeys()).isEqualTo(1);
        assertThat(tenants.authenticate("second-bootstrap-token")).isEmpty();
        assertThat(tenants.authenticate(issued)).as("a key issued through the API is no bootstrap key").isPresent();

        tenants.bootstrapAdmin("admin", "second-bootstrap-token");
        assertThat(tenants.authenticate("second-bootstrap-token")).as("a revoked bootstrap key stays revoked").isEmpty();
    }
}
