package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.MachineStatus;
import java.util.Collections;
import java.util.HashMap;
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
 * @param held        the room due gangs kept without fitting whole (a replica's amounts on each machine it found), never
 *                    written: the scheduler keeps it from its other workers' plans for a while ({@link GangHolds})
 */
public record Plan(List<Assignment> assignments, Map<UUID, Unplaced> unplaced, List<Assignment> held) {

    public Plan {
        assignments = List.copyOf(assignments);
        unplaced = Collections.unmodifiableMap(new LinkedHashMap<>(unplaced));
        held = List.copyOf(held);
    }

    /** A plan in which no gang held room. */
    public Plan(List<Assignment> assignments, Map<UUID, Unplaced> unplaced) {
        this(assignments, unplaced, List.of());
    }

    public Optional<Assignment> assignmentOf(UUID jobId) {
        return assignments.stream().filter(a -> a.jobId().equals(jobId)).findFirst();
    }

    /**
     * Whether, once this plan's placements are counted, some READY machine of {@code snapshot} still has room for the
     * smallest job there can be (a millicore and a megabyte): false when the fleet is full, so that claiming more
     * jobs now would only lock and decide jobs that cannot be placed until an attempt ends.
     */
    public boolean leavesRoomIn(Snapshot snapshot) {
        Map<String, Amounts> placed = new HashMap<>();
        assignments.forEach(a -> placed.merge(a.machineId(), a.amounts(), Amounts::plus));
        for (MachineView view : snapshot.machines()) {
            FleetMachine m = view.machine();
            if (m.status() != MachineStatus.READY) {
                continue;
            }
            Amounts taken = placed.getOrDefault(m.id(), Amounts.ZERO);
            if (m.capacity().cpuMillis() - m.allocated().cpuMillis() - taken.cpuMillis() >= 1
                    && m.capacity().memoryMb() - m.allocated().memoryMb() - taken.memoryMb() >= 1) {
                return true;
            }
        }
        return false;
    }
}
