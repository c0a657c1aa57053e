package io.fleetjobs.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The claim shrinks while the fleet is full, so that jobs with no room are not written back by the hundred. */
class ClaimSizeTest {
    private static final int BATCH = 500;

    @Test
    void aCycleThatLeftJobsForWantOfRoomClaimsTwiceWhatItPlacedNext() {
        assertThat(ClaimPolicy.nextClaimSize(BATCH, 20, 480, true, BATCH)).isEqualTo(40);
        assertThat(ClaimPolicy.nextClaimSize(BATCH, 5, 495, true, BATCH)).isEqualTo(ClaimPolicy.MIN_CLAIM);
        assertThat(ClaimPolicy.nextClaimSize(BATCH, 400, 100, true, BATCH)).isEqualTo(BATCH);
    }

    @Test
    void aCycleThatPlacedNothingClaimsTheWholeBatchAgain() {
        // a head of jobs that fit nowhere now must not slow the way to the jobs behind it that fit
        assertThat(ClaimPolicy.nextClaimSize(ClaimPolicy.MIN_CLAIM, 0, ClaimPolicy.MIN_CLAIM, true, BATCH)).isEqualTo(BATCH);
    }

    @Test
    void whileTheFleetIsFullAClaimThatPlacedNothingKeepsItsSize() {
        // nothing fits until an attempt ends, and then about the room it frees: a whole batch would lock and decide
        // hundreds of jobs for the few that fit
        assertThat(ClaimPolicy.nextClaimSize(64, 0, 64, false, BATCH)).isEqualTo(64);
        assertThat(ClaimPolicy.nextClaimSize(64, 0, 64, true, BATCH)).as("with room somewhere: past the head").isEqualTo(BATCH);
    }

    @Test
    void aClaimThatFilledTheFleetClaimsTwiceWhatItPlacedNext() {
        assertThat(ClaimPolicy.nextClaimSize(BATCH, 100, 0, false, BATCH)).isEqualTo(200);
        assertThat(ClaimPolicy.nextClaimSize(BATCH, 100, 0, true, BATCH)).isEqualTo(BATCH);
    }

    @Test
    void aCycleWithRoomForEverythingDoublesTheClaimBackToTheBatchSize() {
        int claim = ClaimPolicy.MIN_CLAIM;
        int cycles = 0;
        while (claim < BATCH) {
            claim = ClaimPolicy.nextClaimSize(claim, claim, 0, true, BATCH);
            cycles++;
        }
        assertThat(claim).isEqualTo(BATCH);
        assertThat(cycles).isEqualTo(4); // 32 -> 64 -> 128 -> 256 -> 500
    }

    @Test
    void jobsThatCanNeverFitDoNotShrinkTheClaim() {
        // only "no room now" counts: a job that fits nowhere at all says nothing about the fleet's room
        assertThat(ClaimPolicy.nextClaimSize(BATCH, 100, 0, true, BATCH)).isEqualTo(BATCH);
        assertThat(ClaimPolicy.nextClaimSize(64, 64, 0, true, BATCH)).isEqualTo(128);
    }
}
