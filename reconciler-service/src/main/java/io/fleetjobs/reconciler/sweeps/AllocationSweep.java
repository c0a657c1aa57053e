package io.fleetjobs.reconciler.sweeps;

import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.RepairStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Orphaned allocations and drifted counters: what ended attempts still hold is released, and each
 * machine's counters are set to the sum over its held attempts. A cheap unlocked check first; the
 * repair (which locks the machine rows in id order) only when it finds something.
 */
public final class AllocationSweep implements Sweep {
    private static final Logger log = LoggerFactory.getLogger(AllocationSweep.class);

    private final JobStore jobs;
    private final RepairStore repair;
    private final MeterRegistry meters;

    public AllocationSweep(JobStore jobs, RepairStore repair, MeterRegistry meters) {
        this.jobs = jobs;
        this.repair = repair;
        this.meters = meters;
    }

    @Override
    public String name() {
        return "allocations";
    }

    @Override
    public int run(Instant now) {
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
