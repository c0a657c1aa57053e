package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The relay's rule for gaps between positions, on its own (transaction ids as plain numbers). */
class EventGapsTest {

    @Test
    void positionsRightAfterTheCursorPassAndAGapStopsThem() {
        EventGaps gaps = new EventGaps();
        assertThat(gaps.publishable(10, List.of(11L, 12L, 13L), 100)).isEqualTo(3);
        assertThat(gaps.publishable(10, List.of(11L, 12L, 14L, 15L), 100)).as("13 may still come").isEqualTo(2);
        assertThat(gaps.publishable(10, List.of(12L), 100)).as("a gap right after the cursor").isZero();
        assertThat(gaps.publishable(10, List.of(), 100)).isZero();
    }

    @Test
    void aGapPassesOnlyOnceEveryTransactionRunningAfterTheReadThatSawItHasEnded() {
        EventGaps gaps = new EventGaps();
        assertThat(gaps.publishable(12, List.of(14L, 15L), 90)).isZero();
        gaps.stoppedAt(13, 15, 100); // a snapshot after that read: ids from 100 on were not yet given

        assertThat(gaps.publishable(12, List.of(14L, 15L), 99)).as("a transaction below 100 still runs").isZero();
        assertThat(gaps.publishable(12, List.of(14L, 15L, 17L), 100)).as("13 is gone for good; 16 is not proven")
                .isEqualTo(2);
    }

    @Test
    void aProofCoversOnlyThePositionsItsReadSawAbove() {
        EventGaps gaps = new EventGaps();
        gaps.stoppedAt(13, 15, 100);
        assertThat(gaps.publishable(15, List.of(17L), 500)).as("16 lay above what that read saw").isZero();

        gaps.stoppedAt(16, 17, 600);
        assertThat(gaps.publishable(15, List.of(17L), 599)).isZero();
        assertThat(gaps.publishable(15, List.of(17L), 600)).isEqualTo(1);
    }

    @Test
    void aWaitingProofIsNotReplacedByANewerOneForTheSameGap() {
        EventGaps gaps = new EventGaps();
        gaps.stoppedAt(13, 15, 100);
        gaps.stoppedAt(13, 20, 400); // the same gap seen again later: the older, sooner proof stays
        assertThat(gaps.publishable(12, List.of(14L, 15L), 100)).isEqualTo(2);
    }
}
