package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OutcomeTest {
    @ParameterizedTest(name = "exit {0} -> signal {1}")
    @CsvSource(nullValues = "none", value = {
            "0, none", "1, none", "3, none", "127, none", "128, none",
            "129, 1", "130, 2", "137, 9", "143, 15", "192, 64", "193, none", "255, none",
    })
    void anExitCodeAbove128ReadsAsTheSignalThatEndedTheProcess(int exitCode, Integer signal) {
        assertThat(Outcome.signalOf(exitCode)).isEqualTo(signal);
    }
}
