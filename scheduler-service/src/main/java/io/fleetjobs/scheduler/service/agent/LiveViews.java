package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.agent.AgentProtocol.AttemptRef;
import io.fleetjobs.store.AssignedAttempt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What this replica last read of each machine's live attempts, kept so that a heartbeat need not read them again when
 * its answer would say nothing (issue 22: "live attempts per machine kept in the scheduler's memory instead of read
 * per heartbeat"). The database stays the truth; a view is only ever used to answer <em>nothing to say</em>:
 *
 * <ul>
 *   <li>the heartbeat's diff against the view ({@link AgentDiff}) must be empty: no start, no kill, no settle. Anything
 *       else (an attempt the view does not know, a lease to hand out, a kill) is decided on a fresh read, so a view
 *       never starts, kills or writes anything; a stale view can only delay what the next read would have said;</li>
 *   <li>it is at most {@link #maxAge} old (default 1 s, less than the longest hold, after which a held heartbeat is
 *       answered from a read as old);</li>
 *   <li>every wake-up of the machine ({@link LeaseBroker#signal}: a placement committed, a cancel asked, here or on
 *       another replica) and every join forgets it, and so does any write of the heartbeat other than an end report
 *       applied (of an attempt outside a gang): those the view takes in, as the database did;</li>
 *   <li>its machine's incarnation is still read at every heartbeat that uses it (one row by its key), so a join on
 *       another replica supersedes the old agent at once, as before.</li>
 * </ul>
 * A read that began before a change of its machine (a generation counts them) is not kept. Views hold no command or
 * environment (the only part of an attempt that may be large): a start is never answered from them.
 *
 * <p>Each machine also remembers the last attempts its reads found, views forgotten or not ({@link #holds}): the event
 * of a placement that a heartbeat has read already (this replica's own, whose commit signalled the machine at once)
 * then wakes nothing and forgets nothing ({@link LeaseBroker#placed}).
 */
final class LiveViews {
    /** The most machines kept; past it, reads are not kept (every heartbeat reads, as without views). */
    static final int MAX_MACHINES = 100_000;
    /** How long a view answers by default: under the longest hold (2 s), over the time an agent runs a quick job. */
    static final Duration DEFAULT_MAX_AGE = Duration.ofSeconds(1);
    /** Stands for the command of an attempt to start in a view; never sent (a view never answers a start). */
    private static final Execution NOT_KEPT = new Execution(List.of("not-kept"), Map.of(), null);

    private record View(long incarnation, List<AssignedAttempt> attempts, long readAt) {
    }

    private static final class Slot {
        long generation;
        View view;
        /** The last attempts a read of the machine found, views forgotten or not ({@link #holds}). */
        final AttemptRef[] seen = new AttemptRef[SEEN];
        int next;

        boolean seen(AttemptRef ref) {
            for (AttemptRef r : seen) {
                if (ref.equals(r)) {
                    return true;
                }
            }
            return false;
        }

        void saw(AttemptRef ref) {
            if (!seen(ref)) {
                seen[next] = ref;
                next = (next + 1) % SEEN;
            }
        }
    }

    /** How many of the attempts last read on each machine are remembered for {@link #holds}. */
    private static final int SEEN = 16;

    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    private final Duration maxAge;
    private final LongSupplier nanos;
    private final LongAdder answered = new LongAdder();
    private final LongAdder read = new LongAdder();

    LiveViews(Duration maxAge, LongSupplier nanos) {
        this.maxAge = maxAge;
        this.nanos = nanos;
    }

    /** The view's attempts when it is young enough and of this incarnation ({@code startWithinMs} aged with it). */
    Optional<List<AssignedAttempt>> fresh(String machineId, long incarnation) {
        Slot slot = slots.get(machineId);
        if (slot == null) {
            return Optional.empty();
        }
        View view;
        synchronized (slot) {
            view = slot.view;
        }
        if (view == null || view.incarnation() != incarnation) {
            return Optional.empty();
        }
        long age = nanos.getAsLong() - view.readAt();
        if (maxAge.isZero() || age > maxAge.toNanos()) {
            return Optional.empty();
        }
        long ageMs = age / 1_000_000L;
        List<AssignedAttempt> aged = new ArrayList<>(view.attempts().size());
        for (AssignedAttempt a : view.attempts()) {
            aged.add(a.startWithinMs() == null ? a : a.with(a.execution(), Math.max(0, a.startWithinMs() - ageMs)));
        }
        return Optional.of(aged);
    }

    /** A read of the machine's attempts is about to begin: its generation, for {@link #remember}, and its time. */
    Ticket beforeRead(String machineId) {
        long at = nanos.getAsLong();
        Slot slot = slots.get(machineId);
        if (slot == null) {
            if (slots.size() >= MAX_MACHINES) {
                return new Ticket(machineId, -1, at);
            }
            slot = slots.computeIfAbsent(machineId, m -> new Slot());
        }
        synchronized (slot) {
            return new Ticket(machineId, slot.generation, at);
        }
    }

    record Ticket(String machineId, long generation, long readAt) {
    }

    /** Keeps what the read found, unless its machine changed since it began. */
    void remember(Ticket ticket, long incarnation, List<AssignedAttempt> attempts) {
        read.increment();
        Slot slot = slots.get(ticket.machineId());
        if (slot == null || ticket.generation() < 0) {
            return;
        }
        List<AssignedAttempt> kept = new ArrayList<>(attempts.size());
        for (AssignedAttempt a : attempts) {
            kept.add(a.execution() == null ? a : a.with(NOT_KEPT, a.startWithinMs()));
        }
        synchronized (slot) {
            for (AssignedAttempt a : attempts) {
                slot.saw(new AttemptRef(a.jobId(), a.attempt())); // a fact however old the read: found after its placement
            }
            if (slot.generation == ticket.generation()) {
                slot.view = new View(incarnation, List.copyOf(kept), ticket.readAt());
            }
        }
    }

    /**
     * Whether a read of the machine found the attempt (one of the last {@value #SEEN} it found): its placement had
     * committed, and the heartbeat that read it was answered with its lease (or, failing that, the next one reads it).
     */
    boolean holds(String machineId, AttemptRef attempt) {
        Slot slot = slots.get(machineId);
        if (slot == null || maxAge.isZero()) {
            return false;
        }
        synchronized (slot) {
            return slot.seen(attempt);
        }
    }

    /** A heartbeat was answered from the view. */
    void answered() {
        answered.increment();
    }

    /** Something may have changed on the machine: its view is read again. */
    void forget(String machineId) {
        Slot slot = slots.get(machineId);
        if (slot != null) {
            synchronized (slot) {
                slot.generation++;
                slot.view = null;
            }
        }
    }

    /**
     * The heartbeat's end reports of these attempts were applied: they are live no longer. The end of a gang's replica
     * may end its other replicas too, so it forgets the view instead.
     */
    void ended(String machineId, Collection<AttemptRef> refs) {
        Slot slot = slots.get(machineId);
        if (slot == null) {
            return;
        }
        synchronized (slot) {
            slot.generation++;
            View view = slot.view;
            if (view == null) {
                return;
            }
            List<AssignedAttempt> left = new ArrayList<>(view.attempts().size());
            for (AssignedAttempt a : view.attempts()) {
                AttemptRef ref = new AttemptRef(a.jobId(), a.attempt());
                if (refs.contains(ref)) {
                    if (a.gang() != null) {
                        slot.view = null;
                        return;
                    }
                } else {
                    left.add(a);
                }
            }
            slot.view = new View(view.incarnation(), List.copyOf(left), view.readAt());
        }
    }

    /** Heartbeats answered from a view, and reads of a machine's attempts (for the meters). */
    long answeredCount() {
        return answered.sum();
    }

    long readCount() {
        return read.sum();
    }
}
