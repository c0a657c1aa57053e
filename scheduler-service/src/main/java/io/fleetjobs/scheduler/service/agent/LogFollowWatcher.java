package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.logs.LogLimits;
import io.fleetjobs.store.LogStreams;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Answers the held heartbeat of a machine as soon as a follow of one of its attempts is registered (job-service writes
 * it; this replica looks every {@code every}), so that the agent starts shipping within moments; and now and then
 * removes what no one follows ({@link LogStreams#cleanup}). Each look reads the rows registered since the last, with a
 * second's overlap: a machine woken twice answers once more, which costs nothing.
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
            broker.signalAll(logs.machinesFollowedSince(since == null ? now.minus(OVERLAP) : since.minus(OVERLAP)));
            since = now;
            if (lastCleanup == null || !now.isBefore(lastCleanup.plus(CLEANUP_EVERY))) {
                lastCleanup = now;
                int removed = logs.cleanup(LogLimits.UNFOLLOWED_RETENTION, LogLimits.CHUNK_RETENTION);
                if (removed > 0) {
                    log.debug("removed {} log chunks no one follows", removed);
                }
            }
        } catch (RuntimeException e) {
            log.warn("could not look for new log follows: {}", e.getMessage());
        }
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
