package io.fleetjobs.reconciler.domain;

import io.fleetjobs.model.FailureReason;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which machines the platform takes out of placement by itself, and which it only reports. A machine whose last
 * {@code streak} attempts all failed for the platform's reasons (could not start a startable command, lost, lease
 * expired) is drained, so that a broken machine does not eat every job's platform budget. A job's own failures
 * (an exit code, a command that does not exist, memory beyond its request) never count: any tenant could drain a
 * fleet with them. And whatever the cause, at most {@code maxSharePerHour} of a region's machines (at least one) are
 * drained in an hour; the rest are reported, not drained, since many machines failing at once is likelier a fault
 * of the platform, or a tenant's doing, than of the machines.
 *
 * <p>A loss is the machine's fault only if the machine really went away. A machine declared lost whose agent is
 * heard again on the same incarnation (it has not joined since the loss) never died: what was lost was the link, most
 * often because the control plane itself was too busy to hear it. Likewise a lease that expired unstarted while that
 * agent lived on: a lease reaches its agent only in a heartbeat's answer, and a control plane too busy to answer lets
 * leases expire (an agent that tries and fails says START_FAILED). Such endings are left out of the streak, so that
 * a loaded control plane can never drain its own fleet; a machine that died and came back joined anew, and its
 * losses count, each loss once: the attempts one loss ended share its instant, and a busy machine restarted once (its
 * 185 attempts ended MACHINE_LOST together) was drained as if three had failed there one after another.
 */
public final class AutoDrain {
    /** The failures that say something about the machine. */
    static final Set<FailureReason> MACHINE_FAULTS =
            EnumSet.of(FailureReason.START_FAILED, FailureReason.MACHINE_LOST, FailureReason.LEASE_EXPIRED);

    /** The endings that say nothing against a machine whose agent outlived them (joined before, heard since). */
    static final Set<FailureReason> OUTLIVED = EnumSet.of(FailureReason.MACHINE_LOST, FailureReason.LEASE_EXPIRED);

    private final int streak;
    private final double maxSharePerHour;

    public AutoDrain(int streak, double maxSharePerHour) {
        if (streak < 1 || maxSharePerHour < 0 || maxSharePerHour > 1) {
            throw new IllegalArgumentException("streak must be 1 or more and the share within [0, 1]");
        }
        this.streak = streak;
        this.maxSharePerHour = maxSharePerHour;
    }

    public int streak() {
        return streak;
    }

    /** An ended attempt: why (null for a success) and when (null: not known). */
    public record Ended(FailureReason reason, Instant at) {
    }

    /**
     * A READY machine, when its agent last joined (null: not known), and its last ended attempts, newest first.
     */
    public record Candidate(String machineId, String region, Instant joinedAt, List<Ended> lastOutcomes) {
        /** Outcomes whose times are not known. */
        public Candidate(String machineId, String region, List<FailureReason> reasons) {
            this(machineId, region, null, reasons.stream().map(r -> new Ended(r, null)).toList());
        }

        /**
         * The outcomes that say something about this machine: losses and expiries its agent outlived are left out, and
         * the attempts one loss ended (at one instant) are one piece of evidence, not one each.
         */
        List<FailureReason> evidence() {
            List<FailureReason> evidence = new ArrayList<>();
            Ended previous = null;
            for (Ended e : lastOutcomes) {
                boolean outlived = OUTLIVED.contains(e.reason()) && joinedAt != null && e.at() != null
                        && !e.at().isBefore(joinedAt);
                boolean sameLoss = previous != null && e.reason() == FailureReason.MACHINE_LOST
                        && previous.reason() == FailureReason.MACHINE_LOST && e.at() != null && e.at().equals(previous.at());
                if (!outlived && !sameLoss) {
                    evidence.add(e.reason());
                }
                previous = e;
            }
            return evidence;
        }
    }

    /** A region: its machines not LOST, and how many of them the platform drained in the last hour. */
    public record Region(int machines, int drainedLastHour) {
    }

    public sealed interface Action {
        String machineId();

        String reason();

        record Drain(String machineId, String reason) implements Action {
        }

        /** Would be drained, but the region's hourly budget is spent. */
        record Withhold(String machineId, String reason) implements Action {
        }
    }

    /** Candidates in the order given (the caller's: by machine id); those that do not qualify are left out. */
    public List<Action> decide(List<Candidate> candidates, Map<String, Region> regions) {
        Map<String, Integer> drainedNow = new HashMap<>();
        List<Action> actions = new ArrayList<>();
        for (Candidate c : candidates) {
            List<FailureReason> last = c.evidence();
            if (last.size() < streak || !last.subList(0, streak).stream().allMatch(MACHINE_FAULTS::contains)) {
                continue;
            }
            String why = "the last " + streak + " attempts here failed to start or were lost (last: " + last.getFirst() + ")";
            Region region = regions.getOrDefault(c.region(), new Region(1, 0));
            int budget = Math.max(1, (int) Math.floor(maxSharePerHour * region.machines()));
            int drained = region.drainedLastHour() + drainedNow.getOrDefault(c.region(), 0);
            if (drained < budget) {
                drainedNow.merge(c.region(), 1, Integer::sum);
                actions.add(new Action.Drain(c.machineId(), "drained automatically: " + why));
            } else {
                actions.add(new Action.Withhold(c.machineId(), "not drained although " + why + ": " + drained + " of the "
                        + region.machines() + " machines of region " + c.region() + " were drained automatically in the last"
                        + " hour, the most allowed (" + budget + ")"));
            }
        }
        return actions;
    }
}
