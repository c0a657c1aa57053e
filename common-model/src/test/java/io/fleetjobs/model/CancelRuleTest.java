package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.CancelRule.Decision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CancelRuleTest {
    @ParameterizedTest(name = "a cancel of a job {0} (asked before: {1}) is {2}")
    @CsvSource({
            // job state, cancel asked already, decision
            "SUBMITTED, false, CancelNow",
            "QUEUED,    false, CancelNow",
            "SCHEDULED, false, RequestStop",    // on a machine: its agent stops it
            "RUNNING,   false, RequestStop",
            "SCHEDULED, true,  AlreadyAsked",   // idempotent
            "RUNNING,   true,  AlreadyAsked",
            "CANCELED,  false, AlreadyAsked",
            "CANCELED,  true,  AlreadyAsked",
            "SUCCEEDED, false, Refused",
            "FAILED,    true,  Refused"})
    void aCancelDependsOnWhereTheJobIs(JobState state, boolean asked, String decision) {
        assertThat(CancelRule.decide(state, asked).getClass().getSimpleName()).isEqualTo(decision);
    }

    @Test
    void aRefusalSaysHowTheJobEnded() {
        assertThat(CancelRule.decide(JobState.FAILED, false)).isEqualTo(new Decision.Refused("has already ended FAILED"));
    }

    @Test
    void everyStateHasADecisionThatItsTableAllows() {
        for (JobState state : JobState.values()) {
            for (boolean asked : new boolean[] {false, true}) {
                Decision d = CancelRule.decide(state, asked);
                if (d instanceof Decision.CancelNow) {
                    assertThat(state.canMoveTo(JobState.CANCELED)).as("%s", state).isTrue();
                    assertThat(state.isOnMachine()).as("%s", state).isFalse();
                }
                if (d instanceof Decision.RequestStop) {
                    assertThat(state.isOnMachine()).as("%s", state).isTrue();
                }
                if (d instanceof Decision.Refused) {
                    assertThat(state.isTerminal() && state != JobState.CANCELED).as("%s", state).isTrue();
                }
            }
        }
    }
}
