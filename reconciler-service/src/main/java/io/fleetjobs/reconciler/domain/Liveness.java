package io.fleetjobs.reconciler.domain;

import io.fleetjobs.model.MachineStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Sorts machines by how long they have been silent, and says what to do with each. Pure: a list of
 * machines and a time in, a list of actions out.
 *
 * <pre>
 *   silent &lt; suspectAfter             READY (a SUSPECT or LOST machine heard again recovers)
 *   suspectAfter &lt;= silent &lt; lostAfter SUSPECT: takes no new work, keeps its attempts
 *   silent &gt;= lostAfter                LOST: its attempts end MACHINE_LOST and are retried elsewhere
 *                                      ... unless its region is going through a mass silence
 * </pre>
 *
 * <b>Mass silence is an outage, not a fleet death.</b> When more than {@code massSilenceShare} of a
 * region's machines (of at least {@code massSilenceMinMachines}) are silent past {@code suspectAfter}
 * at once, the likelier story is a network or control-plane fault between them and us, not that
 * they all died; declaring them all lost would start every job twice once the link heals. Such
 * machines stay SUSPECT, with a reason saying why, until the region recovers or an operator acts
 * (Kubernetes' unhealthy-zone rule works the same way).
 *
 * <p>DRAINING machines keep their status (an operator's or the platform's choice), but are still
 * declared LOST when silent: their attempts must be retried elsewhere all the same.
 */
public final class Liveness {
    private final Duration suspectAfter;
    private final Duration lostAfter;
    private final double massSilenceShare;
    private final int massSilenceMinMachines;

    public Liveness(Duration suspectAfter, Duration lostAfter, double massSilenceShare, int massSilenceMinMachines) {
        if (!lostAfter.minus(suspectAfter).isPositive()) {
            throw new IllegalArgumentException("lostAfter (" + lostAfter + ") must be longer than suspectAfter (" + suspectAfter + ")");
        }
        this.suspectAfter = suspectAfter;
        this.lostAfter = lostAfter;
        this.massSilenceShare = massSilenceShare;
        this.massSilenceMinMachines = massSilenceMinMachines;
    }

    /** A machine as last recorded. */
    public record Machine(String id, String region, MachineStatus status, Instant lastHeartbeatAt) {
    }

    /** What to do with one machine. */
    public sealed interface Action {
        Machine machine();

        record Recover(Machine machine) implements Action {
        }

        record Suspect(Machine machine, String reason) implements Action {
        }

        record Lose(Machine machine, String reason) implements Action {
        }

        /** Silent past the lost TTL during a mass silence: kept SUSPECT, with this reason. */
        record Hold(Machine machine, String reason) implements Action {
        }
    }

    /** The classification, and the regions in a mass silence (region → silent, total). */
    public record Verdict(List<Action> actions, Map<String, int[]> massSilence) {
    }

    public Verdict classify(List<Machine> machines, Instant now) {
        return classify(machines, now, Duration.ZERO);
    }

    /**
     * As {@link #classify(List, Instant)}, with both TTLs longer by {@code extra}: what the lease agents were given
     * beyond the base lease (a large fleet's slower cadence, {@code HeartbeatCadence}), so that the fence keeps its
     * margin and a machine that beats at the cadence it was told is never thought silent.
     */
    public Verdict classify(List<Machine> machines, Instant now, Duration extra) {
        Duration suspectAfter = this.suspectAfter.plus(extra);
        Duration lostAfter = this.lostAfter.plus(extra);
        Map<String, int[]> byRegion = new HashMap<>(); // region -> {silent, total}
        for (Machine m : machines) {
            if (m.status() == MachineStatus.LOST) {
                continue; // already gone: neither counted nor acted on unless heard again
            }
            int[] counts = byRegion.computeIfAbsent(m.region(), r -> new int[2]);
            counts[1]++;
            if (silence(m, now).compareTo(suspectAfter) >= 0) {
                counts[0]++;
            }
        }
        Map<String, int[]> massSilence = new HashMap<>();
        byRegion.forEach((region, c) -> {
            if (c[1] >= massSilenceMinMachines && c[0] > massSilenceShare * c[1]) {
                massSilence.put(region, c);
            }
        });

        List<Action> actions = new ArrayList<>();
        for (Machine m : machines) {
            Duration silent = silence(m, now);
            boolean heard = silent.compareTo(suspectAfter) < 0;
            if (heard) {
                if (m.status() == MachineStatus.SUSPECT || m.status() == MachineStatus.LOST) {
                    actions.add(new Action.Recover(m));
                }
                continue;
            }
            if (m.status() == MachineStatus.LOST) {
                continue;
            }
            if (silent.compareTo(lostAfter) >= 0) {
                int[] mass = massSilence.get(m.region());
                if (mass != null) {
                    actions.add(new Action.Hold(m, "region " + m.region() + ": " + mass[0] + " of " + mass[1]
                            + " machines silent at once; treated as an outage, not declared lost (no heartbeat for "
                            + silent.toSeconds() + "s)"));
                } else {
                    actions.add(new Action.Lose(m, "no heartbeat for " + silent.toSeconds() + "s (lost after "
                            + lostAfter.toSeconds() + "s)"));
                }
            } else if (m.status() == MachineStatus.READY) {
                actions.add(new Action.Suspect(m, "no heartbeat for " + silent.toSeconds() + "s (suspect after "
                        + suspectAfter.toSeconds() + "s)"));
            }
        }
        return new Verdict(actions, massSilence);
    }

    private static Duration silence(Machine m, Instant now) {
        return m.lastHeartbeatAt() == null ? Duration.ofDays(3650) : Duration.between(m.lastHeartbeatAt(), now);
    }
}
