package io.fleetjobs.reconciler.sweeps;

import java.time.Instant;

/**
 * One repair of desired against actual state. Contract: idempotent and safe to run on any number
 * of replicas at once (every change it makes is guarded: a compare-and-set or a fenced report),
 * restartable at any line, and quick; it returns how many things it repaired.
 */
public interface Sweep {
    String name();

    int run(Instant now);
}
