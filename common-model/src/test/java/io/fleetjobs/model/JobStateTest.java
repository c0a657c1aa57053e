package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class JobStateTest {

    @ParameterizedTest
    @CsvSource({
            "SUBMITTED, QUEUED, true", "SUBMITTED, CANCELED, true", "SUBMITTED, SCHEDULED, false",
            "QUEUED, SCHEDULED, true", "QUEUED, RUNNING, false", "QUEUED, CANCELED, true",
            "SCHEDULED, RUNNING, true", "SCHEDULED, QUEUED, true", "SCHEDULED, SUCCEEDED, true",
            "RUNNING, QUEUED, true", "RUNNING, SCHEDULED, false", "RUNNING, FAILED, true",
            "SUCCEEDED, QUEUED, false", "FAILED, QUEUED, false", "CANCELED, QUEUED, false",
            "QUEUED, QUEUED, false", "RUNNING, RUNNING, false"})
    void theTableSaysWhatIsLegal(JobState from, JobState to, boolean legal) {
        assertThat(from.canMoveTo(to)).isEqualTo(legal);
    }

    @ParameterizedTest
    @EnumSource(value = JobState.class, names = {"SUCCEEDED", "FAILED", "CANCELED"})
    void terminalStatesHaveNoWayOut(JobState terminal) {
        assertThat(terminal.isTerminal()).isTrue();
        assertThat(terminal.legalNext()).isEmpty();
        for (JobState next : JobState.values()) {
            assertThatThrownBy(() -> terminal.checkMoveTo(next)).isInstanceOf(IllegalTransitionException.class);
        }
    }

    @Test
    void everyStateIsReachableFromSubmittedAndEveryLiveStateCanEnd() {
        Set<JobState> seen = EnumSet.of(JobState.SUBMITTED);
        boolean grew = true;
        while (grew) {
            grew = false;
            for (JobState s : EnumSet.copyOf(seen)) {
                grew |= seen.addAll(s.legalNext());
            }
        }
        assertThat(seen).containsExactlyInAnyOrder(JobState.values());
        for (JobState s : JobState.values()) {
            if (!s.isTerminal()) {
                assertThat(s.legalNext()).as("%s can be canceled", s).contains(JobState.CANCELED);
            }
        }
    }

    /** Random walks that try any move: only legal moves succeed, and a terminal state is where a walk stays. */
    @Test
    void randomWalksNeverLeaveTheTable() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        JobState[] all = JobState.values();
        for (int walk = 0; walk < 10_000; walk++) {
            JobState state = JobState.SUBMITTED;
            for (int step = 0; step < 50; step++) {
                JobState wanted = all[random.nextInt(all.length)];
                JobState before = state;
                try {
                    state.checkMoveTo(wanted);
                    state = wanted;
                } catch (IllegalTransitionException e) {
                    assertThat(e.from()).isEqualTo(before);
                }
                if (before.isTerminal()) {
                    assertThat(state).as("seed %d: terminal %s changed", seed, before).isEqualTo(before);
                }
            }
        }
    }
}
