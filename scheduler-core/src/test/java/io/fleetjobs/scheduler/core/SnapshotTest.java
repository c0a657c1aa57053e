package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.model.Amounts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotTest {

    @Test
    void keepsMachinesInIdOrderWhateverOrderTheyComeIn() {
        Snapshot snapshot = Snapshots.of(aMachine("m-3").build(), aMachine("m-1").build(), aMachine("m-2").build());

        assertThat(snapshot.machines()).extracting(MachineView::id).containsExactly("m-1", "m-2", "m-3");
    }

    @Test
    void refusesAMachineTwiceAndANegativeWindow() {
        assertThatThrownBy(() -> Snapshots.of(aMachine("m-1").build(), aMachine("m-2").build(), aMachine("m-1").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("machine m-1 is twice in the snapshot");
        assertThatThrownBy(() -> new Snapshot(List.of(), Map.of(), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withPlacedCountsAPlansPlacementsOnTheirMachinesAndTenants() {
        Snapshot snapshot = Snapshots.of(List.of(aMachine("m-1").cores(8).build(), aMachine("m-2").cores(8).build()),
                new TenantView(Jobs.TENANT_A, 2, 1000, 512, 0, null));
        Snapshot after = snapshot.withPlaced(List.of(
                new Assignment(Jobs.jobId(1), Jobs.TENANT_A, "m-1", new Amounts(3000, 1024, 0)),
                new Assignment(Jobs.jobId(2), Jobs.TENANT_B, "m-1", new Amounts(1000, 256, 0))));

        assertThat(after.machines().get(0).machine().free().cpuMillis()).isEqualTo(4000);
        assertThat(after.machines().get(0).machine().liveAttempts()).isEqualTo(2);
        assertThat(after.machines().get(1)).isSameAs(snapshot.machines().get(1));
        assertThat(after.tenant(Jobs.TENANT_A)).isEqualTo(new TenantView(Jobs.TENANT_A, 2, 4000, 1536, 0, null));
        assertThat(after.tenant(Jobs.TENANT_B).usedCpuMillis()).as("a tenant the snapshot did not name").isEqualTo(1000);
        assertThat(snapshot.tenant(Jobs.TENANT_A).usedCpuMillis()).as("the snapshot itself unchanged").isEqualTo(1000);
    }

    @Test
    void aTenantItDoesNotNameHasWeightOneAndNoQuota() {
        TenantView tenant = Snapshots.of().tenant(Jobs.TENANT_C);

        assertThat(tenant).isEqualTo(new TenantView(Jobs.TENANT_C, 1, 0, 0, 0, Quota.UNLIMITED));
    }
}
