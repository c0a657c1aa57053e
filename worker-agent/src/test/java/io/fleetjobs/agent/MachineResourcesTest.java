package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.GpuDevice;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A lease names GPUs by nvidia-smi's index; the sandbox needs their device nodes' minor numbers. */
class MachineResourcesTest {
    @Test
    void anIndexMapsToItsMinorNumberAndToItselfWhereNoneIsKnown() {
        var resources = new MachineResources("m", 1000, 1024, 3, "H100", GpuDevice.numbered(3), Map.of(0, 1, 1, 0));
        assertThat(resources.deviceMinors(List.of(0, 1, 2))).containsExactly(1, 0, 2);
        assertThat(resources.deviceMinors(List.of())).isEmpty();
        assertThat(resources.deviceMinors(null)).isEmpty();
        assertThat(new MachineResources("m", 1000, 1024, 2, "H100").deviceMinors(List.of(1))).containsExactly(1);
    }
}
