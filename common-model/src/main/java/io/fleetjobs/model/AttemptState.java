package io.fleetjobs.model;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/** The life of one attempt: leased to a machine, started there, ended. */
public enum AttemptState {
    SCHEDULED, RUNNING, SUCCEEDED, FAILED, CANCELED;

    private static final Map<AttemptState, Set<AttemptState>> LEGAL = Map.of(
            SCHEDULED, EnumSet.of(RUNNING, SUCCEEDED, FAILED, CANCELED),
            RUNNING, EnumSet.of(SUCCEEDED, FAILED, CANCELED),
            SUCCEEDED, EnumSet.noneOf(AttemptState.class),
            FAILED, EnumSet.noneOf(AttemptState.class),
            CANCELED, EnumSet.noneOf(AttemptState.class));

    public boolean isLive() {
        return this == SCHEDULED || this == RUNNING;
    }

    public boolean canMoveTo(AttemptState next) {
        return LEGAL.get(this).contains(next);
    }
}
