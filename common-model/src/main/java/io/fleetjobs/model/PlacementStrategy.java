package io.fleetjobs.model;

/** How the scheduler chooses among machines that fit. */
public enum PlacementStrategy {
    /** Fill machines up, keep whole machines (and whole GPU machines) free for big jobs. The default. */
    BINPACK,
    /** Spread attempts over the least loaded machines. */
    SPREAD
}
