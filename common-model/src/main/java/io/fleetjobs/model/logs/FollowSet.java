package io.fleetjobs.model.logs;

import io.fleetjobs.model.agent.AgentProtocol.LogFollow;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Whether the streams followed on a machine differ from those its agent ships: then a held heartbeat is answered at
 * once, so that a new follow reaches the agent within moments, not at the end of the hold.
 */
public final class FollowSet {
    private FollowSet() {
    }

    /**
     * @param shipping what the agent's heartbeat says it ships; null from an agent that ships nothing (older agents)
     * @param followed what is followed now; null when not known (the database could not say)
     */
    public static boolean differs(List<LogFollow> shipping, List<LogFollow> followed) {
        if (shipping == null || followed == null) {
            return false;
        }
        return !keys(shipping).equals(keys(followed));
    }

    private static Set<LogFollow> keys(List<LogFollow> follows) {
        return follows.stream().map(LogFollow::key).collect(Collectors.toSet());
    }
}
