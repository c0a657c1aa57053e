package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.GangRule.Decision;
import io.fleetjobs.model.GangRule.Replica;
import io.fleetjobs.model.agent.AttemptReport;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class GangRuleTest {
    private static final UUID JOB = UUID.randomUUID();
    private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

    private static AttemptReport end(AttemptState state, Integer exit, FailureReason reason) {
        return new AttemptReport(JOB, 1, 7, "m-1", state, exit, reason, T, T.plusSeconds(9), null, null);
    }

    private static Replica replica(int n, AttemptState state, Integer exit, FailureReason reason, int second) {
        return new Replica(n, state, exit, reason, state.isLive() ? null : T.plusSeconds(second));
    }

    @Test
    void aReplicaThatSucceedsWaitsForTheOthersWithoutEndingThem() {
        Decision d = GangRule.afterEnd(end(AttemptState.SUCCEEDED, 0, null), List.of(
                replica(0, AttemptState.SUCCEEDED, 0, null, 1), replica(1, AttemptState.RUNNING, null, null, 0)));
        assertThat(d).isEqualTo(new Decision.Wait(false));
    }

    @Test
    void aReplicaThatFailsEndsTheOthers() {
        Decision d = GangRule.afterEnd(end(AttemptState.FAILED, 3, FailureReason.EXIT_CODE), List.of(
                replica(0, AttemptState.RUNNING, null, null, 0), replica(1, AttemptState.FAILED, 3, FailureReason.EXIT_CODE, 1),
                replica(2, AttemptState.SCHEDULED, null, null, 0)));
        assertThat(d).isEqualTo(new Decision.Wait(true));
    }

    @Test
    void theGangSucceedsWhenEveryReplicaSucceeded() {
        AttemptReport last = end(AttemptState.SUCCEEDED, 0, null);
        Decision d = GangRule.afterEnd(last, List.of(replica(0, AttemptState.SUCCEEDED, 0, null, 1),
                replica(1, AttemptState.SUCCEEDED, 0, null, 2)));
        assertThat(d).isEqualTo(new Decision.Conclude(last));
    }

    @Test
    void theGangEndsAsItsFirstRealFailureNotAsTheReplicasEndedWithIt() {
        AttemptReport last = end(AttemptState.FAILED, 143, FailureReason.GANG_MEMBER_FAILED);
        Decision d = GangRule.afterEnd(last, List.of(
                replica(0, AttemptState.FAILED, 143, FailureReason.GANG_MEMBER_FAILED, 5),
                replica(1, AttemptState.FAILED, 3, FailureReason.EXIT_CODE, 2),
                replica(2, AttemptState.FAILED, 143, FailureReason.GANG_MEMBER_FAILED, 6)));
        assertThat(d).isInstanceOfSatisfying(Decision.Conclude.class, c -> {
            assertThat(c.end().state()).isEqualTo(AttemptState.FAILED);
            assertThat(c.end().exitCode()).isEqualTo(3);
            assertThat(c.end().failureReason()).isEqualTo(FailureReason.EXIT_CODE);
            assertThat(c.end().attempt()).isEqualTo(1);
        });
    }

    @Test
    void aCanceledGangEndsCanceled() {
        AttemptReport last = end(AttemptState.CANCELED, 143, null);
        Decision d = GangRule.afterEnd(last, List.of(replica(0, AttemptState.CANCELED, 143, null, 1),
                replica(1, AttemptState.CANCELED, 143, null, 2)));
        assertThat(d).isInstanceOfSatisfying(Decision.Conclude.class,
                c -> assertThat(c.end().state()).isEqualTo(AttemptState.CANCELED));
    }
}
