package io.fleetjobs.scheduler.service.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.GpuDevice;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A join whose text PostgreSQL cannot store (NUL) is refused as bad input; it failed with a 500 at the write. */
class JoinTextTest {
    private static JoinRequest join(String region, Map<String, String> labels, List<GpuDevice> gpus, String address) {
        return new JoinRequest("m-1", region, labels, 4_000, 8_192, gpus.size(), gpus.isEmpty() ? null : "H100", "none",
                gpus, null, address);
    }

    @Test
    void anyTextOfTheJoinWithNulIsRefused() {
        GpuDevice gpu = new GpuDevice(0, "GPU-1", "H100", 80_000L);
        assertThat(AgentController.holdsNul(join("eu", Map.of("pool", "a"), List.of(gpu), "10.0.0.1"))).isFalse();
        assertThat(AgentController.holdsNul(join("eu", null, List.of(), null))).isFalse();

        assertThat(AgentController.holdsNul(join("e\0u", Map.of(), List.of(), null))).isTrue();
        assertThat(AgentController.holdsNul(join("eu", Map.of("po\0ol", "a"), List.of(), null))).isTrue();
        assertThat(AgentController.holdsNul(join("eu", Map.of("pool", "\0"), List.of(), null))).isTrue();
        assertThat(AgentController.holdsNul(join("eu", Map.of(), List.of(new GpuDevice(0, "GPU-\0", "H100", null)), null)))
                .isTrue();
        assertThat(AgentController.holdsNul(join("eu", Map.of(), List.of(), "host\0"))).isTrue();
    }

    @Test
    void aJoinPastItsBoundsIsRefusedBeforeAnythingIsBuiltForIt() {
        assertThat(AgentController.tooLarge(join("eu", Map.of("pool", "a"), List.of(), null))).isNull();
        var eight = new JoinRequest("m-1", "eu", Map.of(), 4_000, 8_192, 8, "H100", "none", null, null, null);
        assertThat(AgentController.tooLarge(eight)).isNull();
        var huge = new JoinRequest("m-1", "eu", Map.of(), 4_000, 8_192, 100_000_000, "H100", "none", null, null, null);
        assertThat(AgentController.tooLarge(huge)).contains("gpus are at most 1024");
        var manyLabels = new HashMap<String, String>();
        for (int i = 0; i < 65; i++) {
            manyLabels.put("k" + i, "v");
        }
        assertThat(AgentController.tooLarge(join("eu", manyLabels, List.of(), null))).contains("labels");
        assertThat(AgentController.tooLarge(join("eu", Map.of("pool", "v".repeat(257)), List.of(), null))).contains("labels");
        assertThat(AgentController.tooLarge(join("e".repeat(257), Map.of(), List.of(), null))).contains("region");
    }
}
