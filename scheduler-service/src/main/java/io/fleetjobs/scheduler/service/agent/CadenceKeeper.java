package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.HeartbeatCadence;
import io.fleetjobs.store.CadenceStore;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The heartbeat cadence this replica tells agents: sized for the fleet ({@link HeartbeatCadence}) every {@code
 * refresh} and put in force in the database first, so that the reconciler judges silence by the longest lease any
 * replica may have given; what it tells agents is what the database says. On a failure it keeps the last one (a
 * replica that cannot reach the database answers no heartbeat anyway). Until the first read it tells the base
 * cadence, never more than the reconciler expects.
 */
public final class CadenceKeeper implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(CadenceKeeper.class);
    private final CadenceStore store;
    private final HeartbeatCadence.Settings settings;
    private final Duration refresh;
    private volatile HeartbeatCadence current;
    private ScheduledExecutorService timer;

    public CadenceKeeper(CadenceStore store, HeartbeatCadence.Settings settings, Duration refresh) {
        this.store = store;
        this.settings = settings;
        this.refresh = refresh;
        this.current = settings.base();
    }

    public HeartbeatCadence current() {
        return current;
    }

    /** Sizes the cadence for the fleet now and puts it in force. */
    public void refresh() {
        try {
            HeartbeatCadence wanted = HeartbeatCadence.forFleet(store.heartbeatingMachines(), settings);
            HeartbeatCadence inForce = store.set(wanted).cadence();
            if (!inForce.equals(current)) {
                log.info("heartbeat cadence now every {} with a lease of {} ({} machines heartbeat)", inForce.interval(),
                        inForce.leaseTtl(), store.heartbeatingMachines());
            }
            current = inForce;
        } catch (RuntimeException e) {
            log.warn("could not size the heartbeat cadence; keeping every {} with a lease of {}: {}", current.interval(),
                    current.leaseTtl(), e.getMessage());
        }
    }

    @Override
    public void start() {
        timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("heartbeat-cadence").daemon().factory());
        timer.scheduleWithFixedDelay(this::refresh, 0, refresh.toMillis(), TimeUnit.MILLISECONDS);
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
