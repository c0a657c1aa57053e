package io.fleetjobs.reconciler.sweeps;

import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.RepairStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Orphaned allocations and drifted counters: what ended attempts still hold is released, and each
 * machine's counters are set to the sum over its held attempts. An unlocked check first, at most every
 * {@code every} (it sums over every live attempt of the fleet; the write door keeps the counters exact, so it
 * only guards against a bug); the repair (which locks the machine rows in id order) only when it finds something.
 */
public final class AllocationSweep implements Sweep {
    private static final Logger log = LoggerFactory.getLogger(AllocationSweep.class);

    private final JobStore jobs;
    private final RepairStore repair;
    private final MeterRegistry meters;
    private final Duration every;
    /** When the counters were last checked; null: never. Touched by the reconciler's one thread. */
    private Instant checkedAt;

    /** Checks at every run. */
    public AllocationSweep(JobStore jobs, RepairStore repair, MeterRegistry meters) {
        this(jobs, repair, meters, Duration.ZERO);
    }

    /** @param every the least time between two checks */
    public AllocationSweep(JobStore jobs, RepairStore repair, MeterRegistry meters, Duration every) {
        this.jobs = jobs;
        this.repair = repair;
        this.meters = meters;
        this.every = every;
    }

    @Override
    public String name() {
        return "allocations";
    }

    @Override
    public int run(Instant now) {
        if (checkedAt != null && now.isBefore(checkedAt.plus(every)) && !now.isBefore(checkedAt)) {
            return 0;
        }
        checkedAt = now;
        if (!repair.allocationsDrifted()) {
            return 0;
        }
        int fixed = jobs.inTransaction(() -> repair.repairAllocations(now));
        if (fixed > 0) {
            log.warn("allocation counters of {} machines differed from their held attempts; repaired", fixed);
        }
        meters.counter("reconciler.actions", "kind", "allocation-repaired").increment(fixed);
        return fixed;
    }
}
