package io.fleetjobs.jobservice.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class TenantScansTest {
    @Test
    void aTenantHasAtMostTheBoundInProgressAndAnotherTenantIsNotHeldBackByIt() {
        TenantScans scans = new TenantScans(2);
        UUID busy = UUID.randomUUID();
        UUID other = UUID.randomUUID();

        assertThat(scans.tryStart(busy)).isTrue();
        assertThat(scans.tryStart(busy)).isTrue();
        assertThat(scans.tryStart(busy)).as("a third at once").isFalse();
        assertThat(scans.tryStart(other)).as("another tenant's").isTrue();
        scans.end(busy);
        assertThat(scans.tryStart(busy)).as("one ended: room for one more").isTrue();
        assertThat(scans.tryStart(busy)).isFalse();
    }
}
