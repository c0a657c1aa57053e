package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.store.MachineStore;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Writes heartbeats in batches: the latest time seen per machine, flushed every interval in one
 * statement, so that thousands of agents cost a few writes a second, not a transaction each. A machine
 * whose row a placement or an attempt's end holds is skipped and written at a later flush, so that the
 * writer never queues behind them, unless its heartbeat has waited for longer than {@code maxDelay}.
 */
public final class HeartbeatWriter implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(HeartbeatWriter.class);

    private final MachineStore machines;
    private final Duration interval;
    private final Duration maxDelay;
    private final InstantSource clock;
    private Map<String, Instant> pending = new HashMap<>();
    private volatile boolean running;
    private Thread worker;

    /**
     * @param interval how often recorded heartbeats are written
     * @param maxDelay how long a heartbeat may wait for its machine's row to be free before the writer
     *     waits for the row; rows another transaction holds are otherwise left for the next flush
     */
    public HeartbeatWriter(MachineStore machines, Duration interval, Duration maxDelay, InstantSource clock) {
        this.machines = machines;
        this.interval = interval;
        this.maxDelay = maxDelay;
        this.clock = clock;
    }

    public synchronized void record(String machineId, Instant at) {
        pending.merge(machineId, at, (a, b) -> a.isAfter(b) ? a : b);
    }

    /** Writes what has been recorded. */
    public void flush() {
        Map<String, Instant> batch;
        synchronized (this) {
            if (pending.isEmpty()) {
                return;
            }
            batch = pending;
            pending = new HashMap<>();
        }
        try {
            Set<String> written = machines.heartbeatsAvailable(batch);
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
            // a row held again at every flush is waited for once its heartbeat is overdue
            machines.heartbeats(late);
        } catch (RuntimeException e) {
            log.warn("writing {} heartbeats failed; they are kept for the next flush: {}", batch.size(), e.getMessage());
            synchronized (this) {
                batch.forEach((id, at) -> pending.merge(id, at, (a, b) -> a.isAfter(b) ? a : b));
            }
        }
    }

    @Override
    public void start() {
        running = true;
        worker = Thread.ofPlatform().name("heartbeat-writer").daemon().start(() -> {
            while (running) {
                try {
                    Thread.sleep(interval);
                } catch (InterruptedException e) {
                    break;
                }
                flush();
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
