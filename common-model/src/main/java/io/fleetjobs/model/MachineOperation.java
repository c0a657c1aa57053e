package io.fleetjobs.model;

import java.util.Locale;

/**
 * What an operator's drain, cordon or uncordon does to a machine in a given status. Drain and cordon both take it
 * out of placement, its running attempts left to finish: DRAINING says it is being emptied (to be retired or
 * repaired), CORDONED that it is held out for a while. Either outlives a restart of its agent. Uncordon puts it
 * back. A machine the platform cannot hear (SUSPECT, LOST) comes back when it is heard, not by an operator's word.
 */
public enum MachineOperation {
    DRAIN, CORDON, UNCORDON;

    /** The outcome: a new status, nothing to do, or a refusal a person can read. */
    public sealed interface Decision {
        record Change(MachineStatus to) implements Decision {
        }

        record Unchanged() implements Decision {
        }

        record Refused(String reason) implements Decision {
        }
    }

    public Decision decide(MachineStatus current) {
        MachineStatus target = switch (this) {
            case DRAIN -> MachineStatus.DRAINING;
            case CORDON -> MachineStatus.CORDONED;
            case UNCORDON -> MachineStatus.READY;
        };
        if (current == MachineStatus.LOST) {
            return new Decision.Refused("the machine is LOST: nothing runs there, and it rejoins as its agent decides");
        }
        if (this == UNCORDON && current == MachineStatus.SUSPECT) {
            return new Decision.Refused("the machine is SUSPECT (its heartbeats stopped): it is put back when it is heard again");
        }
        return current == target ? new Decision.Unchanged() : new Decision.Change(target);
    }

    /** The path segment of the admin API ({@code /api/v1/machines/{id}/drain}). */
    public String path() {
        return name().toLowerCase(Locale.ROOT);
    }
}
