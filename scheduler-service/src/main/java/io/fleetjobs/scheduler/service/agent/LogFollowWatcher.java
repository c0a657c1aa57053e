package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.logs.LogLimits;
import io.fleetjobs.store.LogStreams;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Answers the held heartbeat of a machine as soon as a follow of one of its attempts is registered (job-service writes
 * it; this replica looks every {@code every}), so that the agent starts shipping within moments; and now and then
 * removes what no one follows ({@link LogStreams#cleanup}). Each look reads the machines followed now, with when
 * each was last followed anew: a machine followed since the last look (with a second's overlap: a machine woken twice
 * answers once more, which costs nothing) is woken, and the set is what heartbeats consult before they ask the
 * database which streams to ship ({@link #followed}): a fleet where no one reads logs costs no query per heartbeat.
 */
public final class LogFollowWatcher implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(LogFollowWatcher.class);
    private static final Duration OVERLAP = Duration.ofSeconds(1);
    private static final Duration CLEANUP_EVERY = Duration.ofMinutes(1);

    private final LogStreams logs;
    private final LeaseBroker broker;
    private final InstantSource clock;
    private final Duration every;
    private Instant since;
    private Instant lastCleanup;
    /** The machines followed at the last look; null until a look succeeds or while looks fail. */
    private volatile Set<String> followed;
    private volatile long lookedAt;
    private ScheduledExecutorService timer;

    public LogFollowWatcher(LogStreams logs, LeaseBroker broker, InstantSource clock, Duration every) {
        this.logs = logs;
        this.broker = broker;
        this.clock = clock;
        this.every = every;
    }

    /** One look: wakes the machines followed anew, and cleans up when it is time. */
    public void look() {
        Instant now = clock.instant();
        try {
            Map<String, Instant> machines = logs.followedMachines();
            followed = Set.copyOf(machines.keySet()); // before the wake-ups, which read it
            lookedAt = System.nanoTime();
            Instant from = since == null ? now.minus(OVERLAP) : since.minus(OVERLAP);
            machines.forEach((machine, registered) -> {
                if (registered.isAfter(from)) {
                    broker.signal(machine);
                }
            });
            since = now;
            if (lastCleanup == null || !now.isBefore(lastCleanup.plus(CLEANUP_EVERY))) {
                lastCleanup = now;
                int removed = logs.cleanup(LogLimits.UNFOLLOWED_RETENTION, LogLimits.CHUNK_RETENTION);
                if (removed > 0) {
                    log.debug("removed {} log chunks no one follows", removed);
                }
            }
        } catch (RuntimeException e) {
            followed = null;
            log.warn("could not look for new log follows: {}", e.getMessage());
        }
    }

    /**
     * Whether the machine may have a stream followed: false only when the last look, a few intervals old at most,
     * found none there; true when the watcher does not know (not started, its looks failing).
     */
    public boolean followed(String machineId) {
        Set<String> now = followed;
        return now == null || System.nanoTime() - lookedAt > every.multipliedBy(10).toNanos() || now.contains(machineId);
    }

    /** {@code read} (the database's answer) asked only of machines that may be followed; none for the others. */
    public Function<String, List<AgentProtocol.LogFollow>> gate(
            Function<String, List<AgentProtocol.LogFollow>> read) {
        return machine -> followed(machine) ? read.apply(machine) : List.of();
    }

    @Override
    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("log-follows").daemon().factory());
        timer.scheduleWithFixedDelay(this::look, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return timer != null && !timer.isShutdown();
    }
}
