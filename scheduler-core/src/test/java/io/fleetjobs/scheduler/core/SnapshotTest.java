package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void aTenantItDoesNotNameHasWeightOneAndNoQuota() {
        TenantView tenant = Snapshots.of().tenant(Jobs.TENANT_C);

        assertThat(tenant).isEqualTo(new TenantView(Jobs.TENANT_C, 1, 0, 0, 0, Quota.UNLIMITED));
    }
}
