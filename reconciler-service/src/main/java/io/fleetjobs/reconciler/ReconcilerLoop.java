package io.fleetjobs.reconciler;

import io.fleetjobs.reconciler.sweeps.Sweep;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.retry.Retry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.InstantSource;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs every sweep, one after another, every interval. A sweep that fails is logged and tried
 * again next time; the others run regardless. Replicas may run side by side: every sweep's changes
 * are guarded, so a second replica finds nothing left to do.
 */
public final class ReconcilerLoop implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(ReconcilerLoop.class);

    private final List<Sweep> sweeps;
    private final InstantSource clock;
    private final ReconcilerProperties properties;
    private final MeterRegistry meters;
    private final CircuitBreaker database;
    private final Retry retry;
    private volatile boolean running;
    private Thread worker;

    public ReconcilerLoop(List<Sweep> sweeps, InstantSource clock, ReconcilerProperties properties, MeterRegistry meters) {
        this(sweeps, clock, properties, meters, CircuitBreaker.ofDefaults("database"), Retry.ofDefaults("database"));
    }

    /**
     * @param database opens while sweeps keep failing (the database is gone): passes are skipped
     *     until it half-opens, and health shows it
     * @param retry retries a failed sweep with backoff before it counts as a failure
     */
    public ReconcilerLoop(List<Sweep> sweeps, InstantSource clock, ReconcilerProperties properties, MeterRegistry meters,
            CircuitBreaker database, Retry retry) {
        this.database = database;
        this.retry = retry;
        this.sweeps = sweeps;
        this.clock = clock;
        this.properties = properties;
        this.meters = meters;
    }

    /** Runs each sweep once. @return what each repaired, in total */
    public int runOnce() {
        int total = 0;
        for (Sweep sweep : sweeps) {
            try {
                Integer n = Timer.builder("reconciler.sweep").tag("sweep", sweep.name()).register(meters)
                        .record(() -> database.executeSupplier(Retry.decorateSupplier(retry, () -> sweep.run(clock.instant()))));
                total += n == null ? 0 : n;
            } catch (CallNotPermittedException e) {
                return total; // the database keeps failing: skip this pass
            } catch (RuntimeException e) {
                log.warn("sweep {} failed; it runs again next time: {}", sweep.name(), e.getMessage());
                meters.counter("reconciler.sweep.failures", "sweep", sweep.name()).increment();
            }
        }
        return total;
    }

    @Override
    public void start() {
        running = true;
        worker = Thread.ofPlatform().name("reconciler").daemon().start(() -> {
            while (running) {
                runOnce();
                try {
                    Thread.sleep(properties.interval());
                } catch (InterruptedException e) {
                    return;
                }
            }
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
