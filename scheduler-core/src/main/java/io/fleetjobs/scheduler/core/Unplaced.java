package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.UnplacedKind;
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
public record Unplaced(UnplacedKind kind, String reason, Map<String, Integer> rejectedBy) {
    /** The reason when there is no machine at all. */
    public static final String NO_MACHINES = "no machines are registered";

    public Unplaced {
        Objects.requireNonNull(kind, "kind");
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("an unplaced job needs a reason");
        }
        rejectedBy = rejectedBy == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(rejectedBy));
    }
}
