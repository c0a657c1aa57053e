package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.store.MachineStore;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Writes heartbeats in batches: the latest time seen per machine, flushed every interval in one
 * statement, so that thousands of agents cost a few writes a second, not a transaction each.
 */
public final class HeartbeatWriter implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(HeartbeatWriter.class);

    private final MachineStore machines;
    private final Duration interval;
    private Map<String, Instant> pending = new HashMap<>();
    private volatile boolean running;
    private Thread worker;

    public HeartbeatWriter(MachineStore machines, Duration interval) {
        this.machines = machines;
        this.interval = interval;
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
            machines.heartbeats(batch);
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
