package io.fleetjobs.scheduler.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Why a job stays queued.
 *
 * @param kind       what the caller should do about it (how long to back off)
 * @param reason     a sentence a person can act on, e.g.
 *                   {@code "0 of 12 machines fit: 9 lack GPU type H100, 3 have fewer than 4 free GPUs"}
 * @param rejectedBy how many machines each filter rejected first, by filter name, in filter order
 *                   (empty when the job was held back before any machine was looked at)
 */
public record Unplaced(Kind kind, String reason, Map<String, Integer> rejectedBy) {
    /** The reason when there is no machine at all. */
    public static final String NO_MACHINES = "no machines are registered";

    public enum Kind {
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

    public Unplaced {
        Objects.requireNonNull(kind, "kind");
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("an unplaced job needs a reason");
        }
        rejectedBy = rejectedBy == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(rejectedBy));
    }
}
