package io.fleetjobs.model;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The states of a job and the one table of legal moves between them.
 *
 * <pre>
 *  SUBMITTED ──admit──▶ QUEUED ──place──▶ SCHEDULED ──start──▶ RUNNING ──▶ SUCCEEDED
 *      │                 ▲ │                 │  │                │  │
 *      │                 │ │                 │  └──lost/expired──┼──┴──retry──▶ QUEUED
 *      │                 │ └──cancel──┐      │                   │
 *      └──cancel──▶ CANCELED ◀────────┴──────┴───────────────────┘
 *                                    FAILED ◀── (no retry left)
 * </pre>
 *
 * Terminal states ({@link #SUCCEEDED}, {@link #FAILED}, {@link #CANCELED}) never change.
 * SCHEDULED may end directly (SUCCEEDED/FAILED) because reports are level-triggered: an agent
 * may report a finished attempt whose start report was lost.
 */
public enum JobState {
    SUBMITTED, QUEUED, SCHEDULED, RUNNING, SUCCEEDED, FAILED, CANCELED;

    private static final Map<JobState, Set<JobState>> LEGAL = Map.of(
            SUBMITTED, EnumSet.of(QUEUED, CANCELED),
            QUEUED, EnumSet.of(SCHEDULED, CANCELED),
            SCHEDULED, EnumSet.of(RUNNING, QUEUED, SUCCEEDED, FAILED, CANCELED),
            RUNNING, EnumSet.of(QUEUED, SUCCEEDED, FAILED, CANCELED),
            SUCCEEDED, EnumSet.noneOf(JobState.class),
            FAILED, EnumSet.noneOf(JobState.class),
            CANCELED, EnumSet.noneOf(JobState.class));

    public boolean isTerminal() {
        return LEGAL.get(this).isEmpty();
    }

    /** True when a job holds (or is about to hold) a live attempt on a machine. */
    public boolean isOnMachine() {
        return this == SCHEDULED || this == RUNNING;
    }

    public boolean canMoveTo(JobState next) {
        return LEGAL.get(this).contains(next);
    }

    public Set<JobState> legalNext() {
        return EnumSet.copyOf(LEGAL.get(this));
    }

    /** Throws when {@code this → next} is not in the table. */
    public void checkMoveTo(JobState next) {
        if (!canMoveTo(next)) {
            throw new IllegalTransitionException(this, next);
        }
    }
}
