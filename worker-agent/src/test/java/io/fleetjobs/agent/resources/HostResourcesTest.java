package io.fleetjobs.agent.resources;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class HostResourcesTest {
    @Test
    void cpuIsTheAvailableProcessorsInMillicores() {
        assertThat(HostResources.cpuMillis()).isEqualTo(Runtime.getRuntime().availableProcessors() * 1000L).isPositive();
    }

    @Test
    void memoryIsPositiveAndNoMoreThanTheMachineHas() throws IOException {
        long memoryMb = HostResources.memoryMb();

        assertThat(memoryMb).isPositive();
        assertThat(memoryMb * 1024 * 1024).isGreaterThanOrEqualTo(Runtime.getRuntime().maxMemory() / 4);
        Path meminfo = Path.of("/proc/meminfo");
        if (Files.isReadable(meminfo)) {
            long totalKb = Files.readAllLines(meminfo).stream().filter(line -> line.startsWith("MemTotal:"))
                    .map(line -> Long.parseLong(line.replaceAll("\\D", ""))).findFirst().orElseThrow();
            assertThat(memoryMb).isLessThanOrEqualTo(totalKb / 1024 + 1);
        }
    }
}
