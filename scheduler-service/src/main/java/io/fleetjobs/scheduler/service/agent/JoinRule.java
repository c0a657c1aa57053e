package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.MachineStatus;
import java.time.Duration;
import java.time.Instant;

/**
 * Whether a join may take a machine id. The cluster join token says only that the caller may join the fleet, not
 * which machine it is: a join for a machine that is live (heard within the lost TTL) or holds attempts must present
 * that machine's current credential, or anyone with the token could take over its leases (other tenants' commands
 * and secrets) and end its running attempts. A machine that is gone (lost, or silent that long, and holding
 * nothing), that never had a credential, or that an operator reset, may be joined afresh. Pure.
 */
public final class JoinRule {
    private JoinRule() {
    }

    /** The machine as recorded, when there is one. */
    public record Existing(MachineStatus status, Instant lastHeartbeatAt, boolean hasCredential, boolean holdsAttempts) {
    }

    public sealed interface Decision {
        record Admit() implements Decision {
        }

        record Refuse(String reason) implements Decision {
        }
    }

    /**
     * @param existing        null when the id is new
     * @param presentsItsCredential the join carries the machine's current credential
     * @param lostAfter       how long a machine may be silent before it is lost (the reconciler's lost TTL)
     */
    public static Decision decide(String machineId, Existing existing, boolean presentsItsCredential, Instant now,
            Duration lostAfter) {
        if (existing == null || presentsItsCredential || !existing.hasCredential()) {
            return new Decision.Admit();
        }
        boolean heard = existing.status() != MachineStatus.LOST && existing.lastHeartbeatAt() != null
                && Duration.between(existing.lastHeartbeatAt(), now).compareTo(lostAfter) < 0;
        if (!heard && !existing.holdsAttempts()) {
            return new Decision.Admit();
        }
        String what = heard ? "is live (heard " + Math.max(0, Duration.between(existing.lastHeartbeatAt(), now).toSeconds())
                + " s ago)" : "holds attempts";
        return new Decision.Refuse("machine " + machineId + " " + what + ": a join for it must present its credential;"
                + " if its disk was lost, an operator resets it (POST /api/v1/machines/" + machineId + "/reset)");
    }
}
