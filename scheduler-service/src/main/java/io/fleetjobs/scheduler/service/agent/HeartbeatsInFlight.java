package io.fleetjobs.scheduler.service.agent;

import java.util.concurrent.ConcurrentHashMap;

/**
 * At most {@link #PER_MACHINE} heartbeats of one machine at once on a replica. An agent sends one at a time (two for a
 * moment, when it gave up on one the replica still holds); without a bound of its own, one machine's credential could
 * hold every place the replica's admission has ({@link HeartbeatAdmission}) with held heartbeats, and every other agent
 * was turned away unheard until its lease ran out. Memory: one entry per machine with a heartbeat in progress.
 */
final class HeartbeatsInFlight {
    static final int PER_MACHINE = 4;

    private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

    /** Takes a place for one of the machine's heartbeats; false when it has {@link #PER_MACHINE} in progress already. */
    boolean tryEnter(String machineId) {
        boolean[] entered = {false};
        counts.compute(machineId, (id, n) -> {
            int now = n == null ? 0 : n;
            if (now >= PER_MACHINE) {
                return n;
            }
            entered[0] = true;
            return now + 1;
        });
        return entered[0];
    }

    /** Gives back the place {@link #tryEnter} took. */
    void exit(String machineId) {
        counts.computeIfPresent(machineId, (id, n) -> n <= 1 ? null : n - 1);
    }

    /** Machines with a heartbeat in progress. */
    int machines() {
        return counts.size();
    }
}
