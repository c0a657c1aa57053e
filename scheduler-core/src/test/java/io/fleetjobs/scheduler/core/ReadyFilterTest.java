package io.fleetjobs.scheduler.core;

import static io.fleetjobs.scheduler.core.Jobs.aJob;
import static io.fleetjobs.scheduler.core.Machines.aMachine;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.MachineStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReadyFilterTest {
    private final ReadyFilter filter = new ReadyFilter();

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource({"READY, true", "SUSPECT, false", "LOST, false", "DRAINING, false"})
    void onlyReadyMachinesTakeNewWork(MachineStatus status, boolean accepts) {
        assertThat(filter.accepts(aJob().build(), aMachine("m1").status(status).state())).isEqualTo(accepts);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {"1; 1 is not READY", "3; 3 are not READY"})
    void explainsInWords(int machines, String expected) {
        assertThat(filter.explain(aJob().build(), machines)).isEqualTo(expected);
    }
}
