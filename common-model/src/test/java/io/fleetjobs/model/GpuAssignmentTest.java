package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GpuAssignmentTest {
    @ParameterizedTest(name = "{0} of offered [{1}] with [{2}] held: [{3}]")
    @CsvSource(delimiter = ';', value = {
            // count; offered; held; picked
            "1; 0 1 2 3 4 5 6 7; ;            0",
            "2; 0 1 2 3 4 5 6 7; 0;           1 2",
            "4; 0 1 2 3 4 5 6 7; 1 2;         0 3 4 5",
            "1; 0 1 2 3 4 5 6 7; 0 1 2 3 4 5 6; 7",
            "0; 0 1;             ;            ''",
            "2; 2 5 7;           5;           2 7", // a mixed machine offers only the devices of its type
    })
    void takesTheLowestNumberedFreeDevices(int count, String offered, String held, String picked) {
        assertThat(GpuAssignment.pick(count, set(offered), set(held))).isEqualTo(list(picked));
    }

    @Test
    void refusesWhenTheHoldsLeaveTooFew() {
        assertThatThrownBy(() -> GpuAssignment.pick(2, Set.of(0, 1), Set.of(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("only 1 of the offered [0, 1] are free");
    }

    @Test
    void aJobsEnvironmentNamesTheDevicesItHoldsInBusOrderAndNoneAsVoid() {
        assertThat(GpuAssignment.environment(List.of(1, 3))).containsExactly(
                Map.entry("CUDA_DEVICE_ORDER", "PCI_BUS_ID"), Map.entry("CUDA_VISIBLE_DEVICES", "1,3"),
                Map.entry("NVIDIA_VISIBLE_DEVICES", "1,3"));
        assertThat(GpuAssignment.environment(List.of())).containsEntry("CUDA_VISIBLE_DEVICES", "")
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "void");
    }

    @Test
    void visibleDevicesIsACommaSeparatedList() {
        assertThat(GpuAssignment.visibleDevices(List.of(0, 3))).isEqualTo("0,3");
        assertThat(GpuAssignment.visibleDevices(List.of())).isEmpty();
    }

    private static Set<Integer> set(String s) {
        return Set.copyOf(list(s));
    }

    private static List<Integer> list(String s) {
        return s == null || s.isBlank() ? List.of()
                : Arrays.stream(s.trim().split("\\s+")).map(Integer::valueOf).collect(Collectors.toList());
    }
}
