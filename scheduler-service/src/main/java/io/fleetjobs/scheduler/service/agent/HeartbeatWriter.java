package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.store.HeartbeatWatermarks;
import io.fleetjobs.store.MachineStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.dao.PessimisticLockingFailureException;

/**
 * Writes heartbeats in batches: the latest time seen per machine, flushed every interval in one
 * statement, so that thousands of agents cost a few writes a second, not a transaction each. A machine
 * whose row a placement or an attempt's end holds is skipped and written at a later flush, so that the
 * writer never queues behind them, unless its heartbeat has waited for longer than {@code maxDelay}.
 *
 * <p>An answered heartbeat renews the agent's lease, so a heartbeat must not be answered unless it will be
 * recorded: a writer that cannot write (its thread ended by an {@code Error}, its flushes failing) would leave
 * agents renewed while the reconciler sees their machines silent and runs their jobs elsewhere. The writer survives
 * whatever a flush throws, says so loudly, and is {@link #healthy()} only while its flushes succeed; the heartbeat
 * path refuses to answer (503) while it is not.
 */
public final class HeartbeatWriter implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(HeartbeatWriter.class);

    /**
     * The writes of a flush: {@link MachineStore#heartbeatsAvailable} and {@link MachineStore#heartbeats}, then the
     * watermark ({@link HeartbeatWatermarks}).
     */
    interface Writes {
        Set<String> available(Map<String, Instant> lastSeen);

        void waiting(Map<String, Instant> lastSeen);

        /** Every heartbeat heard before {@code heardUntil} is written. */
        default void watermark(Instant heardUntil) {
        }

        /** The writer starts. */
        default void started() {
        }
    }


    private final Writes machines;
    private final Duration interval;
    private final Duration stallAfter;
    private volatile long lastFlushed = System.nanoTime();
    private volatile boolean started;
    private final Duration maxDelay;
    private static final Duration SLOW_LOG_EVERY = Duration.ofSeconds(10);
    private volatile long lastSlowLog = System.nanoTime() - SLOW_LOG_EVERY.toNanos();
    private final InstantSource clock;
    private Map<String, Instant> pending = new HashMap<>();
    private volatile boolean running;
    private volatile Thread worker;

    /**
     * @param interval how often recorded heartbeats are written
     * @param maxDelay how long a heartbeat may wait for its machine's row to be free before the writer
     *     waits for the row; rows another transaction holds are otherwise left for the next flush
     */
    public HeartbeatWriter(MachineStore machines, Duration interval, Duration maxDelay, InstantSource clock) {
        this(machines, null, interval, maxDelay, clock);
    }

    /** @param watermarks where each flush says how far it has written what it heard; null: nowhere */
    public HeartbeatWriter(MachineStore machines, HeartbeatWatermarks watermarks, Duration interval, Duration maxDelay,
            InstantSource clock) {
        this(writes(machines, watermarks, "scheduler-" + UUID.randomUUID()), interval, maxDelay, clock);
    }

    /** The writes to the store; {@code replica}: this writer's name among the replicas' watermarks. */
    private static Writes writes(MachineStore machines, HeartbeatWatermarks watermarks, String replica) {
        return new Writes() {
            @Override
            public void started() {
                if (watermarks != null) {
                    watermarks.forget(Duration.ofHours(1)); // replicas gone for good
                }
            }

            @Override
            public Set<String> available(Map<String, Instant> lastSeen) {
                return machines.heartbeatsAvailable(lastSeen);
            }

            @Override
            public void waiting(Map<String, Instant> lastSeen) {
                machines.heartbeats(lastSeen);
            }

            @Override
            public void watermark(Instant heardUntil) {
                if (watermarks != null) {
                    watermarks.record(replica, heardUntil);
                }
            }
        };
    }

    /**
     * The replica's trouble hearing its fleet ({@link HeardTrouble}): signed by the heartbeat path where an agent may
     * have gone unheard, and holding back the watermark each flush writes. Ends 8 s after its last sign unless {@link
     * #troubleCalmsAfter} says otherwise. A flush that fails or is slow is no such sign: what was heard waits in
     * memory, and the watermark never passes what is written.
     */
    private volatile HeardTrouble trouble = new HeardTrouble(() -> Duration.ofSeconds(8), HeardTrouble.MAX_HOLD_BACK);

    HeartbeatWriter(Writes machines, Duration interval, Duration maxDelay, InstantSource clock) {
        this.stallAfter = max(Duration.ofSeconds(1), interval.multipliedBy(5));
        this.machines = machines;
        this.interval = interval;
        this.maxDelay = maxDelay;
        this.clock = clock;
    }

    /** Trouble ends {@code calm} after its last sign (what it takes every agent turned away to be heard again). */
    public void troubleCalmsAfter(Supplier<Duration> calm) {
        trouble = new HeardTrouble(calm, HeardTrouble.MAX_HOLD_BACK);
    }

    /**
     * A sign that this replica may not be hearing its fleet now: an agent's heartbeat may have gone unrecorded (shed
     * before its machine was known, its credential not read) or the replica is overloaded (a heartbeat waited for a
     * turn at the database, or took over a second), when others may wait unread in its backlog.
     */
    public void troubled() {
        trouble.sign(clock.instant());
    }

    public synchronized void record(String machineId, Instant at) {
        pending.merge(machineId, at, (a, b) -> a.isAfter(b) ? a : b);
    }

    /**
     * Whether heartbeats are being written: a writer started whose last flush succeeded within a few intervals (one
     * never started, in a test that flushes by hand, is). Heartbeats are not answered while it is not.
     */
    public boolean healthy() {
        if (!started) {
            return true;
        }
        Thread t = worker;
        return t != null && t.isAlive() && System.nanoTime() - lastFlushed < stallAfter.toNanos();
    }

    /** Writes what has been recorded; says so when a flush took long enough to put the writer near unhealthy. */
    public void flush() {
        long began = System.nanoTime();
        int size;
        synchronized (this) {
            size = pending.size();
        }
        write();
        long tookMs = (System.nanoTime() - began) / 1_000_000;
        if (tookMs * 2 > stallAfter.toMillis() && System.nanoTime() - lastSlowLog > SLOW_LOG_EVERY.toNanos()) {
            lastSlowLog = System.nanoTime();
            log.warn("a heartbeat flush of {} machines took {} ms (heartbeats are refused when none succeeded for {} ms)",
                    size, tookMs, stallAfter.toMillis());
        }
    }

    private void write() {
        Instant heardBefore = clock.instant(); // what was recorded before it is in this batch or an earlier one
        Map<String, Instant> batch;
        synchronized (this) {
            batch = pending;
            pending = new HashMap<>();
        }
        try {
            if (batch.isEmpty()) {
                machines.watermark(trouble.holdBack(heardBefore, clock.instant()));
                lastFlushed = System.nanoTime();
                return;
            }
            Set<String> written = machines.available(batch);
            Map<String, Instant> late = new HashMap<>();
            Instant due = clock.instant().minus(maxDelay);
            batch.forEach((id, at) -> {
                if (!written.contains(id)) {
                    if (at.isBefore(due)) {
                        late.put(id, at);
                    } else {
                        record(id, at);
                    }
                }
            });
            // a row held again at every flush is waited for once its heartbeat is overdue, but only briefly (the
            // writer's connections have a lock timeout): a flush that waited for a placement's commit would make
            // the writer late, and a late writer refuses heartbeats; still held, it is kept for the next flush,
            // and the watermark below waits for it
            try {
                machines.waiting(late);
            } catch (PessimisticLockingFailureException e) {
                late.forEach(this::record);
            }
            machines.watermark(trouble.holdBack(oldestPending(heardBefore), clock.instant()));
            lastFlushed = System.nanoTime();
        } catch (RuntimeException | Error e) {
            // not a sign of trouble hearing the fleet: what was heard is kept, and the watermark stays where the last
            // flush that worked left it until one works again
            if (e instanceof Error) {
                log.error("writing {} heartbeats failed with an error; they are kept for the next flush, and heartbeats"
                        + " are refused until a flush succeeds", batch.size(), e);
            } else {
                log.warn("writing {} heartbeats failed; they are kept for the next flush: {}", batch.size(), e.getMessage());
            }
            synchronized (this) {
                batch.forEach((id, at) -> pending.merge(id, at, (a, b) -> a.isAfter(b) ? a : b));
            }
        }
    }

    /** The watermark after a flush: what it skipped (a held row) waits for the next one, and holds it back. */
    private synchronized Instant oldestPending(Instant heardBefore) {
        Instant oldest = heardBefore;
        for (Instant at : pending.values()) {
            oldest = at.isBefore(oldest) ? at : oldest;
        }
        return oldest;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public void start() {
        try {
            machines.started();
        } catch (RuntimeException e) {
            log.warn("could not forget the watermarks of replicas gone: {}", e.getMessage());
        }
        running = true;
        started = true;
        lastFlushed = System.nanoTime();
        worker = Thread.ofPlatform().name("heartbeat-writer").daemon().start(() -> {
            while (running) {
                try {
                    Thread.sleep(interval);
                } catch (InterruptedException e) {
                    break;
                }
                try {
                    flush();
                } catch (Throwable e) { // flush keeps what it could not write; nothing may end this thread
                    log.error("the heartbeat writer's flush failed; going on", e);
                }
            }
            flush();
        });
    }

    @Override
    public void stop() {
        running = false;
        if (worker != null) {
            worker.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
