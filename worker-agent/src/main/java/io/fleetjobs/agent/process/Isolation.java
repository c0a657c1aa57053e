package io.fleetjobs.agent.process;

import java.util.Locale;

/** How attempts are held apart on a machine. */
public enum Isolation {
    /** Each attempt as a uid of its own, in pid, mount and IPC namespaces of its own (see {@link Sandbox}). */
    SANDBOX,
    /** As the agent's own uid, seeing the whole machine. */
    NONE;

    /** As the agent says it at join: {@code sandbox} or {@code none}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
