package io.fleetjobs.store;

import io.fleetjobs.model.FleetMachine;
import io.fleetjobs.model.MachineStatus;
import java.time.Instant;

/**
 * A machine as the database has it: the machine (capacity, what is allocated, status…), why it has its status,
 * its last heartbeat, and {@code isolation} as its agent said at join ({@code sandbox}, {@code none}; null when it did
 * not say).
 */
public record MachineRow(FleetMachine machine, String statusReason, Instant lastHeartbeatAt, String isolation) {

    public String id() {
        return machine.id();
    }

    public MachineStatus status() {
        return machine.status();
    }

    /** Whether its agent said it sandboxes the jobs it runs. */
    public boolean sandboxed() {
        return "sandbox".equals(isolation);
    }
}
