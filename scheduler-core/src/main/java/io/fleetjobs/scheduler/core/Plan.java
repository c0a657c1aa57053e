package io.fleetjobs.scheduler.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What the engine decided for a batch: every job it was given is either in {@code assignments} or
 * a key of {@code unplaced}, never both.
 *
 * @param assignments placements, in the order the engine decided them
 * @param unplaced    reasons, by job id, in the order the engine decided them
 */
public record Plan(List<Assignment> assignments, Map<UUID, Unplaced> unplaced) {

    public Plan {
        assignments = List.copyOf(assignments);
        unplaced = Collections.unmodifiableMap(new LinkedHashMap<>(unplaced));
    }

    public Optional<Assignment> assignmentOf(UUID jobId) {
        return assignments.stream().filter(a -> a.jobId().equals(jobId)).findFirst();
    }
}
