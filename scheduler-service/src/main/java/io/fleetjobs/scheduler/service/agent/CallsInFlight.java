package io.fleetjobs.scheduler.service.agent;

import java.util.concurrent.ConcurrentHashMap;

/**
 * At most {@link #perMachine} calls of one kind from one machine at once on a replica. An agent sends one heartbeat at a
 * time (two for a moment, when it gave up on one the replica still holds) and one log push at a time; without a bound
 * of its own, one machine's credential could hold every place the replica's admission has ({@link HeartbeatAdmission})
 * with held heartbeats, turning every other agent away unheard until its lease ran out, or keep the service's database
 * pool busy with pushes. Memory: one entry per machine with a call in progress.
 */
final class CallsInFlight {
    /** Heartbeats of one machine in progress at once. */
    static final int HEARTBEATS = 4;
    /** Log pushes of one machine in progress at once. */
    static final int PUSHES = 2;

    private final int perMachine;
    private final ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();

    CallsInFlight(int perMachine) {
        this.perMachine = perMachine;
    }

    int perMachine() {
        return perMachine;
    }

    /** Takes a place for one of the machine's calls; false when it has {@link #perMachine} in progress already. */
    boolean tryEnter(String machineId) {
        boolean[] entered = {false};
        counts.compute(machineId, (id, n) -> {
            int now = n == null ? 0 : n;
            if (now >= perMachine) {
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

    /** Machines with a call in progress. */
    int machines() {
        return counts.size();
    }
}
