package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * Room that plans have taken and whose commit has not ended yet, by plan. A snapshot read while such a
 * commit runs does not show its placements; adding what is reserved keeps the next plan from handing
 * out the same room twice.
 *
 * <pre>
 *   plan ──▶ reserve(token, assignments) ──▶ commit ──▶ release(token)
 *                                               │ committed: a fresh read shows the placements
 *                                               └ failed or refused: the room is free again
 * </pre>
 *
 * <p>Contract, as the Kubernetes scheduler framework states it for Reserve and Unreserve:
 * <ul>
 *   <li>{@link #reserve} is idempotent: reserving again under a token replaces what it held, never adds
 *       to it.</li>
 *   <li>{@link #release} is idempotent and must be called however the commit ended, failure included;
 *       releasing a token that holds nothing (never reserved, or released already) does nothing.</li>
 *   <li>Releasing frees the room only here: a caller that kept the placements elsewhere (a cached
 *       snapshot) reads afresh after a commit that failed.</li>
 * </ul>
 * Thread-safe.
 */
public final class Reservations {
    private final Map<Object, List<Assignment>> byToken = new HashMap<>();

    /** Holds the room of {@code assignments} under {@code token}, in place of what it held before. */
    public synchronized void reserve(Object token, List<Assignment> assignments) {
        byToken.put(token, List.copyOf(assignments));
    }

    /** Lets go of what {@code token} holds, if anything. */
    public synchronized void release(Object token) {
        byToken.remove(token);
    }

    /** Every assignment reserved now. */
    public synchronized List<Assignment> held() {
        List<Assignment> all = new ArrayList<>();
        byToken.values().forEach(all::addAll);
        return all;
    }

    /**
     * What is reserved at this moment: take it right before a read of the fleet, and add {@link #heldSince} it to
     * what the read returned.
     */
    public synchronized Mark mark() {
        return new Mark(Map.copyOf(byToken));
    }

    /**
     * Every assignment reserved now or when {@code mark} was taken: what a read of the fleet that began at the mark
     * may lack. A commit releases its token only after it has ended, so a token released since the mark may belong
     * to a commit that ended after the read's snapshot was taken, its placements in neither the read nor
     * {@link #held()}; counting it is what keeps the next plan from handing out its room again. A commit that ended
     * between the mark and the read's snapshot is counted twice: room withheld until the next read, never given twice.
     */
    public synchronized List<Assignment> heldSince(Mark mark) {
        Map<Object, List<Assignment>> all = new HashMap<>(mark.byToken());
        all.putAll(byToken); // a token reserved again since holds what it holds now
        List<Assignment> held = new ArrayList<>();
        all.values().forEach(held::addAll);
        return held;
    }

    /** What was reserved at one moment, by token. */
    public record Mark(Map<Object, List<Assignment>> byToken) {
    }

    /** What the assignments take on each machine. */
    public static Map<String, Amounts> byMachine(Collection<Assignment> assignments) {
        return sums(assignments, Assignment::machineId);
    }

    /** How many attempts the assignments place on each machine. */
    public static Map<String, Integer> attemptsByMachine(Collection<Assignment> assignments) {
        Map<String, Integer> attempts = new HashMap<>();
        for (Assignment a : assignments) {
            attempts.merge(a.machineId(), 1, Integer::sum);
        }
        return attempts;
    }

    /** What the assignments give each tenant. */
    public static Map<UUID, Amounts> byTenant(Collection<Assignment> assignments) {
        return sums(assignments, Assignment::tenantId);
    }

    /** Adds up in place, one sum per key rather than one {@link Amounts} per assignment. */
    private static <K> Map<K, Amounts> sums(Collection<Assignment> assignments, Function<Assignment, K> key) {
        Map<K, Sum> sums = new HashMap<>();
        for (Assignment a : assignments) {
            Sum sum = sums.computeIfAbsent(key.apply(a), k -> new Sum());
            sum.cpuMillis += a.amounts().cpuMillis();
            sum.memoryMb += a.amounts().memoryMb();
            sum.gpus += a.amounts().gpus();
        }
        Map<K, Amounts> totals = new HashMap<>(sums.size() * 2);
        sums.forEach((k, sum) -> totals.put(k, new Amounts(sum.cpuMillis, sum.memoryMb, sum.gpus)));
        return totals;
    }

    private static final class Sum {
        long cpuMillis;
        long memoryMb;
        int gpus;
    }
}
