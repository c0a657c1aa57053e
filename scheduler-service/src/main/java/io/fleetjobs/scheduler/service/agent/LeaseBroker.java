package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.agent.AgentProtocol.AttemptRef;
import java.time.Duration;
import java.util.Collection;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/**
 * Long-poll wake-ups per machine: a heartbeat with nothing to do waits here until an attempt is
 * placed on its machine or a cancel is asked there (this replica's commits, or events from other
 * replicas), or its wait runs out. A waiter registers before it reads the database, so a signal
 * between its read and its wait is not lost.
 */
public final class LeaseBroker {
    private final ConcurrentHashMap<String, CompletableFuture<Void>> waiters = new ConcurrentHashMap<>();
    /** Told of every signal, waited for or not: something changed on that machine ({@link LiveViews#forget}). */
    private volatile Consumer<String> changed = machineId -> { };
    /** Whether an attempt on a machine was read by a heartbeat of it after its placement committed. */
    private volatile BiPredicate<String, AttemptRef> known = (machineId, attempt) -> false;

    /**
     * Who is told of every signal, before its waiter wakes (so that the waiter reads what changed), and who knows
     * which placements a heartbeat of their machine has read already ({@link #placed}).
     */
    public void onSignal(Consumer<String> changed,
            BiPredicate<String, AttemptRef> known) {
        this.changed = changed;
        this.known = known;
    }

    /**
     * An attempt placed on a machine, heard from its event: a signal, unless a heartbeat of the machine read that
     * attempt already (after the placement committed: the heartbeat that read it was answered with its lease, or,
     * failing that, the next one reads it again). The event of a placement this replica committed and signalled
     * itself would otherwise wake the machine's next held heartbeat for nothing, and make it read its attempts again.
     */
    public void placed(String machineId, UUID jobId, int attempt) {
        if (!known.test(machineId, new AttemptRef(jobId, attempt))) {
            signal(machineId);
        }
    }

    /** A ticket that completes at the next signal for this machine. */
    public CompletableFuture<Void> register(String machineId) {
        return waiters.computeIfAbsent(machineId, id -> new CompletableFuture<>());
    }

    /** Waits for the ticket or the timeout; true when signalled. */
    public boolean await(CompletableFuture<Void> ticket, Duration timeout) {
        try {
            ticket.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return true;
        }
    }

    /** Whether a heartbeat of this machine is registered for the next signal (for tests). */
    public boolean registered(String machineId) {
        return waiters.containsKey(machineId);
    }

    public void signal(String machineId) {
        changed.accept(machineId);
        CompletableFuture<Void> waiter = waiters.remove(machineId);
        if (waiter != null) {
            waiter.complete(null);
        }
    }

    public void signalAll(Collection<String> machineIds) {
        machineIds.forEach(this::signal);
    }
}
