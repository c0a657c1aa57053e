package io.fleetjobs.model;

/** The kinds of change that {@code jobs.events} carries. */
public enum JobEventType {
    /** The job moved from one state to another ({@code from} → {@code to}). */
    STATE_CHANGED,
    /** A cancel was asked for a job on a machine; the job keeps its state until the agent confirms. */
    CANCEL_REQUESTED
}
