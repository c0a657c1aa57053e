package io.fleetjobs.model;

/**
 * Why a queued job was left unplaced, as the engine decides it and as its row stores it ({@code jobs.unplaced_kind}):
 * what the scheduler should do about it (how long to back off).
 */
public enum UnplacedKind {
    /**
     * Some machine could host the job, but none has the free capacity (or the health) now.
     * Worth trying again soon: capacity frees up as attempts end.
     */
    DOES_NOT_FIT_NOW,
    /**
     * No machine of the snapshot, whatever its load or health, has the attributes and total capacity
     * the job needs, or the job alone exceeds its tenant's quota. Nothing changes that but the fleet
     * (a machine joining, resized or relabelled) or the quota: back off long.
     */
    CAN_NEVER_FIT,
    /** Machines may fit, but the tenant's quota would be exceeded: waits for the tenant's own attempts to end. */
    OVER_QUOTA
}
