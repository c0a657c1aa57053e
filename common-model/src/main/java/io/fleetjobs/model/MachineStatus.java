package io.fleetjobs.model;

/** What the control plane believes of a machine. Only READY machines take new attempts. */
public enum MachineStatus {
    /** Heartbeating; takes new attempts. */
    READY,
    /** Missed a few heartbeats; takes nothing new, its attempts keep running. */
    SUSPECT,
    /** Silent past the lost TTL; its attempts have ended MACHINE_LOST. */
    LOST,
    /** Taken out of placement by an operator or by the platform (reason shown); running attempts finish. */
    DRAINING,
    /** Taken out of placement by an operator for a while (maintenance); running attempts go on; uncordon puts it back. */
    CORDONED
}
