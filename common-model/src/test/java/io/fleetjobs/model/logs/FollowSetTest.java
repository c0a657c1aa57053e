package io.fleetjobs.model.logs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.agent.AgentProtocol.LogFollow;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class FollowSetTest {
    private static final UUID JOB = UUID.fromString("00000000-0000-0000-0000-000000000001");
    private static final LogFollow OUT = new LogFollow(JOB, 1, "stdout", 0);
    private static final LogFollow ERR = new LogFollow(JOB, 1, "stderr", 0);

    @Test
    void aNewOrEndedFollowDiffers() {
        assertThat(FollowSet.differs(List.of(), List.of(OUT))).isTrue();
        assertThat(FollowSet.differs(List.of(OUT, ERR), List.of(OUT))).isTrue();
    }

    @Test
    void theSameStreamsDoNotWhereverEachReaderStarts() {
        assertThat(FollowSet.differs(List.of(OUT), List.of(new LogFollow(JOB, 1, "stdout", -65536)))).isFalse();
        assertThat(FollowSet.differs(List.of(), List.of())).isFalse();
    }

    @Test
    void whatIsNotKnownNeverCutsAHoldShort() {
        assertThat(FollowSet.differs(null, List.of(OUT))).isFalse(); // an agent that does not ship
        assertThat(FollowSet.differs(List.of(OUT), null)).isFalse(); // the database did not say
    }
}
