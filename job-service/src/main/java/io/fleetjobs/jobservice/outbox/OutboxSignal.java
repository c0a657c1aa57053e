package io.fleetjobs.jobservice.outbox;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** Tells the relay that outbox rows were committed, so that it publishes now rather than at its next poll. */
public final class OutboxSignal {
    private final Semaphore pending = new Semaphore(0);

    public void wake() {
        if (pending.availablePermits() == 0) {
            pending.release();
        }
    }

    /** Waits for a wake-up or the timeout, whichever comes first. */
    void await(Duration timeout) throws InterruptedException {
        if (pending.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            pending.drainPermits();
        }
    }
}
