package io.fleetjobs.reconciler.sweeps;

import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.RepairStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A machine on which the last {@code streak} attempts all failed to start or were lost is taken out
 * of placement (DRAINING) with the reason shown, so that a broken machine does not eat every job's
 * platform budget. An operator puts it back.
 */
public final class AutoDrainSweep implements Sweep {
    private static final Logger log = LoggerFactory.getLogger(AutoDrainSweep.class);
    private static final Set<FailureReason> MACHINE_FAULTS =
            EnumSet.of(FailureReason.START_FAILED, FailureReason.MACHINE_LOST, FailureReason.LEASE_EXPIRED);

    private final RepairStore repair;
    private final MachineStore machines;
    private final int streak;
    private final Duration lookBack;
    private final MeterRegistry meters;

    public AutoDrainSweep(RepairStore repair, MachineStore machines, int streak, Duration lookBack, MeterRegistry meters) {
        this.repair = repair;
        this.machines = machines;
        this.streak = streak;
        this.lookBack = lookBack;
        this.meters = meters;
    }

    @Override
    public String name() {
        return "auto-drain";
    }

    @Override
    public int run(Instant now) {
        int drained = 0;
        for (String machine : repair.machinesWithRecentPlatformFailures(now.minus(lookBack))) {
            List<FailureReason> last = repair.lastOutcomes(machine, streak);
            if (last.size() == streak && last.stream().allMatch(MACHINE_FAULTS::contains)) {
                String reason = "drained automatically: the last " + streak + " attempts here failed to start or were lost"
                        + " (last: " + last.getFirst() + ")";
                if (machines.setStatus(machine, MachineStatus.DRAINING, reason)) {
                    log.warn("machine {} {}", machine, reason);
                    drained++;
                }
            }
        }
        meters.counter("reconciler.actions", "kind", "machine-drained").increment(drained);
        return drained;
    }
}
