package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.BoundedTagValues;
import io.fleetjobs.store.FleetStatistics;
import io.fleetjobs.store.PlacementStore;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.retry.Retry;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs cycles back to back while they find work, then waits for a wake-up (a job queued, room
 * released, a machine joined) or the safety-net interval. Losing every wake-up only delays placement.
 * {@code jobs.scheduler.workers} threads do so at once on the one cycle, so that one worker's
 * database work overlaps another's.
 */
public final class SchedulerLoop implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(SchedulerLoop.class);

    /** Jobs that fitted nowhere woken by one statement when the fleet changes. */
    private static final int WAKE_BATCH = 10_000;
    /** How often the queue depth gauge is read, at most ({@link FleetStatistics#pause}). */
    private static final Duration DEPTH_INTERVAL = Duration.ofSeconds(5);

    private final SchedulerCycle cycle;
    private final PlacementStore placement;
    private final FleetStatistics statistics;
    private final SchedulerProperties properties;
    private final InstantSource clock;
    private final MeterRegistry meters;
    private final List<Semaphore> wakes = new ArrayList<>();
    private final CircuitBreaker database;
    private final Retry retry;
    private final Map<String, AtomicLong> depthByQueue = new ConcurrentHashMap<>();
    private final BoundedTagValues queueTags;
    private volatile boolean running;
    private final AtomicBoolean roomAppeared = new AtomicBoolean();
    private final AtomicBoolean fleetChanged = new AtomicBoolean();
    private final List<Thread> workers = new ArrayList<>();
    private Instant nextDepth = Instant.MIN;
    private Instant nextRoomLook = Instant.MIN;

    public SchedulerLoop(SchedulerCycle cycle, PlacementStore placement, FleetStatistics statistics,
            SchedulerProperties properties, InstantSource clock, MeterRegistry meters) {
        this(cycle, placement, statistics, properties, clock, meters, CircuitBreaker.ofDefaults("database"),
                Retry.ofDefaults("database"));
    }

    /**
     * @param database opens while the database keeps failing: the loop then waits longer between tries,
     *     and health shows it (DOWN with the circuit open)
     * @param retry retries a failed cycle with backoff before it counts as one failure
     */
    public SchedulerLoop(SchedulerCycle cycle, PlacementStore placement, FleetStatistics statistics,
            SchedulerProperties properties, InstantSource clock, MeterRegistry meters, CircuitBreaker database, Retry retry) {
        this(cycle, placement, statistics, properties, clock, meters, database, retry,
                new BoundedTagValues(BoundedTagValues.DEFAULT_MAX));
    }

    /** @param queueTags the queue names the depth gauge tags by (a bounded number; the rest are "other") */
    public SchedulerLoop(SchedulerCycle cycle, PlacementStore placement, FleetStatistics statistics,
            SchedulerProperties properties, InstantSource clock, MeterRegistry meters, CircuitBreaker database, Retry retry,
            BoundedTagValues queueTags) {
        this.queueTags = queueTags;
        this.placement = placement;
        this.database = database;
        this.retry = retry;
        this.cycle = cycle;
        this.statistics = statistics;
        this.properties = properties;
        this.clock = clock;
        this.meters = meters;
        for (int i = 0; i < properties.workers(); i++) {
            wakes.add(new Semaphore(0));
        }
    }

    /** Something changed: run a cycle now. */
    public void wake() {
        for (Semaphore wake : wakes) {
            if (wake.availablePermits() == 0) {
                wake.release();
            }
        }
    }

    /** Room appeared (capacity released, a machine joined): jobs the claims passed over may fit now. */
    public void roomAppeared() {
        roomAppeared.set(true);
        wake();
    }

    /**
     * The fleet changed (a machine joined): jobs that fit no machine before may fit one now, those
     * waiting out a "fits nowhere" backoff included (their backoff is lifted).
     */
    public void fleetChanged() {
        fleetChanged.set(true);
        roomAppeared();
    }

    private void loop(Semaphore wake) {
        while (running) {
            try {
                database.executeRunnable(Retry.decorateRunnable(retry, this::work));
            } catch (CallNotPermittedException e) {
                log.debug("database circuit open; waiting");
            } catch (RuntimeException e) {
                log.warn("scheduling cycle failed; trying again: {}", e.getMessage());
            }
            long worked = System.nanoTime();
            long waitMs = properties.interval().toMillis() * (database.getState() == CircuitBreaker.State.OPEN ? 4 : 1);
            try {
                if (wake.tryAcquire(waitMs, TimeUnit.MILLISECONDS)) {
                    // a wake-up comes with each event: while jobs are submitted by the hundred a second, each
                    // would start a claim of its own (3.9 ms of PostgreSQL each over a backlog of 50,000 jobs that
                    // fit nowhere); those of the next moment are gathered into one
                    Duration left = gatherFor(properties.gatherWakeUps(), Duration.ofNanos(System.nanoTime() - worked));
                    if (left.isPositive()) {
                        Thread.sleep(left);
                    }
                    wake.drainPermits();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * How long a wake-up that came {@code sinceWork} after the worker's last cycle waits before the next: what is
     * left of {@code gather}, so that the claims a burst of events starts are one per {@code gather} at most.
     */
    static Duration gatherFor(Duration gather, Duration sinceWork) {
        Duration left = gather.minus(sinceWork);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** Cycles back to back while they place anything and leave room for more (or lost placements to conflicts). */
    private void work() {
        Look look = takeLook();
        if (look != Look.NONE) {
            if (look == Look.FLEET_CHANGED) {
                // every job that fitted nowhere, however many: their backoff may be minutes long
                while (running && placement.wakeUnplaceable(WAKE_BATCH) == WAKE_BATCH) {
                    log.debug("woke {} jobs that fitted nowhere; more to wake", WAKE_BATCH);
                }
            }
            cycle.lookAgain();
        }
        SchedulerCycle.Result result;
        do {
            result = cycle.runOnce();
        } while (running && (result.conflicts() > 0 || result.placed() > 0 && result.roomLeft()));
        refreshDepth();
    }

    private enum Look { NONE, ROOM_APPEARED, FLEET_CHANGED }

    /**
     * Whether to look for room now: room appeared (or the fleet changed), and the last look was an
     * interval ago or more. Jobs end by the thousand a second in a busy fleet, and machines join by the
     * hundred when a fleet starts; restarting the claims from the head (and reading the machines, and
     * on a change of the fleet waking the jobs that fitted nowhere) once per interval is enough, and
     * one worker does it.
     */
    private synchronized Look takeLook() {
        Instant now = clock.instant();
        if (!roomAppeared.get() || now.isBefore(nextRoomLook)) {
            return Look.NONE;
        }
        roomAppeared.set(false);
        nextRoomLook = now.plus(properties.interval());
        return fleetChanged.getAndSet(false) ? Look.FLEET_CHANGED : Look.ROOM_APPEARED;
    }

    private synchronized void refreshDepth() {
        if (clock.instant().isBefore(nextDepth)) {
            return;
        }
        long began = System.nanoTime();
        Map<String, Long> depths = new HashMap<>();
        statistics.queueDepths().forEach((queue, count) -> depths.merge(queueTags.tag(queue), count, Long::sum));
        nextDepth = clock.instant().plus(FleetStatistics.pause(DEPTH_INTERVAL, Duration.ofNanos(System.nanoTime() - began)));
        depthByQueue.forEach((tag, v) -> v.set(depths.getOrDefault(tag, 0L)));
        depths.forEach((tag, count) -> depthByQueue.computeIfAbsent(tag, q -> {
            AtomicLong depth = new AtomicLong();
            Gauge.builder("scheduler.queue.depth", depth, AtomicLong::get).tags(Tags.of("queue", q))
                    .description("jobs waiting in QUEUED (queues past jobs.metrics.max-queue-tags as \"other\")")
                    .register(meters);
            return depth;
        }).set(count));
    }

    @Override
    public void start() {
        running = true;
        for (int i = 0; i < wakes.size(); i++) {
            Semaphore wake = wakes.get(i);
            workers.add(Thread.ofPlatform().name("scheduler-loop-" + i).daemon().start(() -> loop(wake)));
        }
    }

    @Override
    public void stop() {
        running = false;
        workers.forEach(Thread::interrupt);
        for (Thread worker : workers) {
            try {
                worker.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        workers.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
