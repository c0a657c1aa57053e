package io.fleetjobs.workloads.packing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.workloads.packing.Cluster.Machine;
import io.fleetjobs.workloads.packing.Cluster.Task;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;

/** The cluster and its tasks as the fleet simulator and the public API take them, nothing lost on the way. */
class ThroughTheFleetTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Test
    void machinesBecomeTheSimulatorsRowsInCoresAndMebibytes() {
        List<String> csv = ThroughTheFleet.machinesCsv(List.of(new Machine("m00001", "H100", 96_000, 786_432, 8),
                new Machine("m00002", null, 64_000, 262_144, 0)));
        assertThat(csv).containsExactly("id,region,cpu,memoryMb,gpuCount,gpuType,labels",
                "m00001,packing,96,786432,8,H100,", "m00002,packing,64,262144,0,,");
    }

    @Test
    void aTaskBecomesAJobOfItsModelsAsAlternativesThatNeverEnds() {
        JsonNode restricted = JSON.readTree(ThroughTheFleet.jobSpec(new Task(7, 4_500, 36_864, 2, List.of("A100", "H100"))));
        assertThat(restricted.at("/resources/cpu").asDouble()).isEqualTo(4.5);
        assertThat(restricted.at("/resources/memoryMb").asLong()).isEqualTo(36_864);
        assertThat(restricted.at("/resources/gpuCount").asInt()).isEqualTo(2);
        assertThat(restricted.at("/resources/gpuType").asString()).isEqualTo("A100|H100");
        assertThat(restricted.at("/placement/region").asString()).isEqualTo("packing");
        assertThat(restricted.at("/execution/env/SIM_DURATION_MS").asLong()).isGreaterThan(3_600_000);

        JsonNode any = JSON.readTree(ThroughTheFleet.jobSpec(new Task(8, 500, 2_000, 0, List.of())));
        assertThat(any.at("/resources/gpuType").isNull()).isTrue();
        assertThat(any.at("/resources/gpuCount").asInt()).isZero();
    }
}
