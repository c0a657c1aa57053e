package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FleetMachineTest {
    @ParameterizedTest(name = "{0} with {1} allocated, then {2} more: {3} free")
    @CsvSource({
            // capacity      allocated      more           free after
            "16000;65536;8,  0;0;0,         0;0;0,         16000;65536;8",  // empty: all of it
            "16000;65536;8,  4000;1024;2,   0;0;0,         12000;64512;6",
            "16000;65536;8,  4000;1024;2,   12000;0;6,     0;64512;0",      // full in two dimensions
            "4000;1024;0,    4000;1024;0,   1000;0;0,      -1000;0;0",      // over-committed shows negative
    })
    void freeIsCapacityLessWhatIsAllocated(String capacity, String allocated, String more, String free) {
        FleetMachine m = new FleetMachine("m", "r", Map.of(), null, parse(capacity), parse(allocated), MachineStatus.READY);
        FleetMachine after = m.allocating(parse(more));
        assertThat(after.free()).isEqualTo(parse(free));
        assertThat(after.capacity()).as("capacity does not move").isEqualTo(m.capacity());
        assertThat(after.allocated()).isEqualTo(parse(allocated).plus(parse(more)));
    }

    private static Amounts parse(String s) {
        String[] p = s.split(";");
        return new Amounts(Long.parseLong(p[0]), Long.parseLong(p[1]), Integer.parseInt(p[2]));
    }
}
