package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.MachineOperation.Decision;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MachineOperationTest {
    @ParameterizedTest(name = "{0} of a {1} machine: {2}")
    @CsvSource({
            // operation, status now, outcome (a status: changed to it; '-': unchanged; '!': refused)
            "DRAIN,    READY,    DRAINING",
            "DRAIN,    SUSPECT,  DRAINING",  // silent for now: held out whatever it says when heard
            "DRAIN,    CORDONED, DRAINING",
            "DRAIN,    DRAINING, -",
            "DRAIN,    LOST,     !",
            "CORDON,   READY,    CORDONED",
            "CORDON,   DRAINING, CORDONED",
            "CORDON,   CORDONED, -",
            "CORDON,   LOST,     !",
            "UNCORDON, DRAINING, READY",     // an auto-drained machine is put back too
            "UNCORDON, CORDONED, READY",
            "UNCORDON, READY,    -",
            "UNCORDON, SUSPECT,  !",
            "UNCORDON, LOST,     !"})
    void theOperationsTable(MachineOperation operation, MachineStatus status, String outcome) {
        Decision d = operation.decide(status);
        switch (outcome) {
            case "-" -> assertThat(d).isInstanceOf(Decision.Unchanged.class);
            case "!" -> assertThat(d).isInstanceOf(Decision.Refused.class);
            default -> assertThat(d).isEqualTo(new Decision.Change(MachineStatus.valueOf(outcome)));
        }
    }
}
