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
        FleetMachine after = m.allocating(parse(more), 1);
        assertThat(after.free()).isEqualTo(parse(free));
        assertThat(after.capacity()).as("capacity does not move").isEqualTo(m.capacity());
        assertThat(after.allocated()).isEqualTo(parse(allocated).plus(parse(more)));
    }

    @org.junit.jupiter.api.Test
    void attemptsAtOnceAreCountedAgainstTheMachinesLimit() {
        FleetMachine m = new FleetMachine("m", "r", Map.of(), null, parse("2000;2048;0"), Amounts.ZERO, MachineStatus.READY,
                3, 1);
        assertThat(m.freeAttempts()).isEqualTo(2);
        assertThat(m.allocating(parse("1;1;0"), 2).freeAttempts()).isZero();
        assertThat(new FleetMachine("m", "r", Map.of(), null, parse("1;1;0"), Amounts.ZERO, MachineStatus.READY, 2, 5)
                .freeAttempts()).as("a limit lowered below what runs").isEqualTo(-3);
        FleetMachine unlimited = new FleetMachine("m", "r", Map.of(), null, parse("1;1;0"), Amounts.ZERO, MachineStatus.READY);
        assertThat(unlimited.allocating(parse("1;1;0"), 5).freeAttempts()).isEqualTo(FleetMachine.UNLIMITED);
    }

    private static Amounts parse(String s) {
        String[] p = s.split(";");
        return new Amounts(Long.parseLong(p[0]), Long.parseLong(p[1]), Integer.parseInt(p[2]));
    }
}
