package io.fleetjobs.agent.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MachinesCsvTest {
    private static List<SimulatedMachine> parse(String... lines) {
        return MachinesCsv.parse("fleet.csv", List.of(lines));
    }

    @Test
    void readsEveryFieldOfEveryMachine() {
        List<SimulatedMachine> machines = parse(MachinesCsv.HEADER,
                "cpu-1, us-east-1 ,64,262144,0,,pool=batch;disk=ssd",
                "",
                "gpu-1,eu-west-1,0.5,1024,8,H100,");

        assertThat(machines).containsExactly(
                new SimulatedMachine("cpu-1", "us-east-1", 64_000, 262_144, 0, null,
                        Map.of("pool", "batch", "disk", "ssd")),
                new SimulatedMachine("gpu-1", "eu-west-1", 500, 1024, 8, "H100", Map.of()));
    }

    @Test
    void aWrongHeaderIsLineOne() {
        assertThatThrownBy(() -> parse("id,region,cpu,memory,gpuCount,gpuType,labels", "a,r,1,1,0,,"))
                .isInstanceOfSatisfying(BadMachinesFileException.class, e -> {
                    assertThat(e.line()).isEqualTo(1);
                    assertThat(e.field()).isNull();
                    assertThat(e).hasMessageContaining("fleet.csv line 1").hasMessageContaining(MachinesCsv.HEADER);
                });
    }

    @Test
    void anEmptyFileAndAHeaderAloneHaveNoMachines() {
        assertThatThrownBy(() -> parse()).isInstanceOf(BadMachinesFileException.class).hasMessageContaining("line 1");
        assertThatThrownBy(() -> parse(MachinesCsv.HEADER, "")).hasMessageContaining("no machines");
    }

    @Test
    void aLineWithTooFewFieldsIsNamed() {
        assertThatThrownBy(() -> parse(MachinesCsv.HEADER, "a,r,1,1,0,,", "b,r,1,1,0"))
                .isInstanceOfSatisfying(BadMachinesFileException.class, e -> {
                    assertThat(e.line()).isEqualTo(3);
                    assertThat(e).hasMessageContaining("5 fields where 7 are expected");
                });
    }

    @Test
    void aMachineTwiceIsRefusedOnItsSecondLine() {
        assertThatThrownBy(() -> parse(MachinesCsv.HEADER, "a,r,1,1,0,,", "a,r,2,2,0,,"))
                .isInstanceOfSatisfying(BadMachinesFileException.class, e -> {
                    assertThat(e.line()).isEqualTo(3);
                    assertThat(e.field()).isEqualTo("id");
                    assertThat(e).hasMessageContaining("already on line 2");
                });
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "bad id!,r,1,1,0,,          | id",
            "a,,1,1,0,,                 | region",
            "a,r,0,1,0,,                | cpu",
            "a,r,-2,1,0,,               | cpu",
            "a,r,1.0005,1,0,,           | cpu",
            "a,r,many,1,0,,             | cpu",
            "a,r,1,0,0,,                | memoryMb",
            "a,r,1,1.5,0,,              | memoryMb",
            "a,r,1,1,-1,,               | gpuCount",
            "a,r,1,1,two,,              | gpuCount",
            "a,r,1,1,0,H100,            | gpuType",
            "a,r,1,1,0,,pool            | labels",
            "a,r,1,1,0,,=x              | labels",
            "a,r,1,1,0,,pool=a;pool=b   | labels",
            "a,r,1,1,0,,pool=a;         | labels"})
    void aBadFieldIsNamedWithItsLine(String line, String field) {
        assertThatThrownBy(() -> parse(MachinesCsv.HEADER, line))
                .isInstanceOfSatisfying(BadMachinesFileException.class, e -> {
                    assertThat(e.line()).isEqualTo(2);
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e).hasMessageStartingWith("fleet.csv line 2, field " + field + ": ");
                });
    }
}
