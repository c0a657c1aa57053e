package io.fleetjobs.scheduler.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What the scheduler claims next: how many queued jobs, and from where in the claim's order.
 *
 * <pre>
 *   next(now) ──▶ claim ──▶ plan, commit ──▶ claimed(claim, outcome, now)
 *      │                                        │ jobs passed over: resume after the last one claimed
 *      │                                        │ claim size: from what was placed and what lacked room
 *      └── resume point older than retryNoRoom: from the head again
 *   restart(): room appeared, or jobs may lie behind the resume point: from the head again
 * </pre>
 *
 * <p>Jobs that find no room now (or whose tenant is at its quota) are not written back with a backoff:
 * the next claims resume after the last job that claim took, passing over them in memory, so that a
 * head of jobs that do not fit now (GPU jobs while the GPUs are busy) neither blocks the jobs behind it
 * nor costs a row write per job and cycle. The claims go back to the head when room appears
 * ({@link #restart}) or {@code retryNoRoom} after the first job was passed over.
 *
 * <p>The claim shrinks while the fleet is nearly full, so that a claim does not lock and decide
 * hundreds of jobs for the few that fit ({@link #nextClaimSize}); while it is full (no machine has room
 * for any job), a claim that placed nothing keeps its size rather than claiming the whole batch.
 *
 * <p>Thread-safe: the workers of one replica share one policy.
 */
public final class ClaimPolicy {
    /** The smallest claim while the fleet is full. */
    public static final int MIN_CLAIM = 32;

    private final int batchSize;
    private final Duration retryNoRoom;
    private int claimSize;
    /** The last job of a claim that passed jobs over, or null: claim from the head. */
    private QueuePosition resumeAfter;
    /** When the claims began passing over jobs. */
    private Instant passingSince;
    /**
     * Counts the restarts from the head. A claim that began before the last restart does not move the
     * resume point: it may have skipped (locked elsewhere) a job that the restart is for.
     */
    private long restarts;

    public ClaimPolicy(int batchSize, Duration retryNoRoom) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1");
        }
        this.batchSize = batchSize;
        this.retryNoRoom = Objects.requireNonNull(retryNoRoom, "retryNoRoom");
        this.claimSize = batchSize;
    }

    /**
     * A claim: up to {@code limit} jobs after {@code after} (from the head when null).
     *
     * @param restarts the restarts as of the claim's beginning
     */
    public record Claim(int limit, QueuePosition after, long restarts) {
    }

    /**
     * What a claim's first round did.
     *
     * @param placed     jobs placed
     * @param noRoom     jobs left because no machine has room for them now
     * @param passedOver jobs left to wait in memory for room (no room now, or their tenant at its quota)
     * @param last       the last job claimed, in the claim's order; null when none was
     * @param roomLeft   whether some machine still has room for any job once this claim's placements are counted
     *                   ({@link Plan#leavesRoomIn}); false: the fleet is full
     */
    public record Outcome(int placed, int noRoom, int passedOver, QueuePosition last, boolean roomLeft) {
        /** An outcome that leaves room in the fleet. */
        public Outcome(int placed, int noRoom, int passedOver, QueuePosition last) {
            this(placed, noRoom, passedOver, last, true);
        }
    }

    /** The next claim: after the resume point while it is younger than {@code retryNoRoom}. */
    public synchronized Claim next(Instant now) {
        if (resumeAfter != null && !now.isBefore(passingSince.plus(retryNoRoom))) {
            restart(); // look at the jobs passed over again, room or not
        }
        return new Claim(claimSize, resumeAfter, restarts);
    }

    /**
     * Takes in what {@code claim} found: the claim size follows it, and the jobs up to its last (in the
     * claim's order) that it passed over are passed over until room appears, unless the claims
     * restarted since it began.
     */
    public synchronized void claimed(Claim claim, Outcome outcome, Instant now) {
        claimSize = nextClaimSize(claimSize, outcome.placed(), outcome.noRoom(), outcome.roomLeft(), batchSize);
        if (outcome.passedOver() == 0 || outcome.last() == null || claim.restarts() != restarts) {
            return;
        }
        if (resumeAfter == null) {
            resumeAfter = outcome.last();
            passingSince = now;
        } else if (outcome.last().compareTo(resumeAfter) > 0) {
            resumeAfter = outcome.last();
        }
    }

    /** The next claim starts from the head of the queue. */
    public synchronized void restart() {
        resumeAfter = null;
        restarts++;
    }

    /**
     * The claim after one of {@code claim} jobs that placed {@code placed} and left {@code noRoom} for
     * want of room: twice what it placed (at least {@link #MIN_CLAIM}) while jobs lack room; doubling
     * back towards the batch size while none does; the whole batch after a claim that placed nothing while
     * the fleet has room, so that a head of jobs that fit nowhere now is passed over as fast as the batch
     * allows. While the fleet is full ({@code roomLeft} false) nothing fits whatever the claim: one that placed
     * nothing keeps its size (the next claim comes when an attempt ends, for about the room that frees; a
     * whole batch would lock and decide hundreds of jobs for the few that fit).
     */
    static int nextClaimSize(int claim, int placed, int noRoom, boolean roomLeft, int batchSize) {
        if (placed == 0) {
            return roomLeft ? batchSize : claim;
        }
        int next = noRoom > 0 || !roomLeft ? Math.max(MIN_CLAIM, 2 * placed) : 2 * claim;
        return Math.min(batchSize, next);
    }
}
