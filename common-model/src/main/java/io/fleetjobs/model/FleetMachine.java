package io.fleetjobs.model;

import java.util.Map;
import java.util.Objects;

/**
 * A machine of the fleet as placement needs it: where it is, what it has and what is already allocated on it, and its
 * status. The one record of these facts: the store reads it ({@code MachineRow}, with what operators read besides) and
 * the placement engine plans on it ({@code MachineView}, with how fresh its heartbeat looked).
 *
 * @param id        the machine's id; ties between equally good machines are broken by it
 * @param labels    the machine's labels; a job's required labels must all be among them
 * @param gpuType   the model of its GPUs (one model per machine), null when it has none or it is unknown
 * @param capacity  what it has in all
 * @param allocated what the jobs placed on it hold
 * @param maxLiveAttempts the most attempts it runs at once, however little each asks for (its agent's word, or the
 *                  scheduler's default): each costs its agent memory and the machine processes, so a flood of tiny
 *                  jobs must not land on one machine by the thousand
 * @param liveAttempts the attempts placed on it that hold room now
 */
public record FleetMachine(String id, String region, Map<String, String> labels, String gpuType, Amounts capacity,
        Amounts allocated, MachineStatus status, int maxLiveAttempts, int liveAttempts) {
    /** No limit on the attempts at once. */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    /** A machine that runs any number of attempts at once, none placed. */
    public FleetMachine(String id, String region, Map<String, String> labels, String gpuType, Amounts capacity,
            Amounts allocated, MachineStatus status) {
        this(id, region, labels, gpuType, capacity, allocated, status, UNLIMITED, 0);
    }

    public FleetMachine {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(capacity, "capacity");
        Objects.requireNonNull(allocated, "allocated");
        Objects.requireNonNull(status, "status");
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /** What is left for new work: capacity less allocation (negative in a dimension that is over-committed). */
    public Amounts free() {
        return capacity.minus(allocated);
    }

    /** How many more attempts it may take (negative when its limit was lowered below what it runs). */
    public int freeAttempts() {
        return maxLiveAttempts == UNLIMITED ? UNLIMITED : maxLiveAttempts - liveAttempts;
    }

    /** The machine with {@code more} allocated on it besides, by {@code moreAttempts} more attempts. */
    public FleetMachine allocating(Amounts more, int moreAttempts) {
        return new FleetMachine(id, region, labels, gpuType, capacity, allocated.plus(more), status, maxLiveAttempts,
                liveAttempts + moreAttempts);
    }
}
