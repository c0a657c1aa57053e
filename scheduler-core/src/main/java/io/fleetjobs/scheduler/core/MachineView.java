package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;
import java.time.Duration;
import java.util.Objects;

/**
 * One machine as the snapshot saw it: the machine as read (where it is, what it has, what is already allocated on it,
 * its status) and how healthy it looked. Immutable; the engine never changes it (placements within a plan are counted
 * on the engine's own copy of the free capacity).
 *
 * @param heartbeatAge time since its last heartbeat, null if it never sent one
 * @param sandboxed    whether its agent sandboxes the jobs it runs
 */
public record MachineView(FleetMachine machine, Duration heartbeatAge, boolean sandboxed) {

    /** A machine whose agent does not sandbox its jobs (or did not say). */
    public MachineView(FleetMachine machine, Duration heartbeatAge) {
        this(machine, heartbeatAge, false);
    }

    public MachineView {
        Objects.requireNonNull(machine, "machine");
        if (negative(machine.capacity()) || negative(machine.allocated())) {
            throw new IllegalArgumentException("machine " + machine.id() + ": capacity and allocation must not be negative");
        }
    }

    /** The machine's id: the snapshot is sorted by it, and ties between equally good machines are broken by it. */
    public String id() {
        return machine.id();
    }

    /** The same machine with {@code more} allocated on it besides, by {@code attempts} attempts (what a plan placed there). */
    public MachineView allocating(Amounts more, int attempts) {
        return new MachineView(machine.allocating(more, attempts), heartbeatAge, sandboxed);
    }

    private static boolean negative(Amounts a) {
        return a.cpuMillis() < 0 || a.memoryMb() < 0 || a.gpus() < 0;
    }
}
