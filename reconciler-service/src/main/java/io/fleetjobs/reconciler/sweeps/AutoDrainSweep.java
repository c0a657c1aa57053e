package io.fleetjobs.reconciler.sweeps;

import io.fleetjobs.reconciler.domain.AutoDrain;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.RepairStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@link AutoDrain} to the READY machines that ended an attempt with a platform failure lately: drains
 * those it says to, logs and counts those it withholds. An operator puts a drained machine back (uncordon). A machine
 * withheld is logged and counted once, when it is first withheld, not at every run while it stays so (a sweep runs
 * every second).
 */
public final class AutoDrainSweep implements Sweep {
    private static final Logger log = LoggerFactory.getLogger(AutoDrainSweep.class);
    private static final Duration HOUR = Duration.ofHours(1);

    private final RepairStore repair;
    private final MachineStore machines;
    private final AutoDrain rule;
    private final Duration lookBack;
    private final MeterRegistry meters;
    /** The machines withheld at the last run: withheld again, they are not logged again. */
    private Set<String> withheldBefore = Set.of();

    public AutoDrainSweep(RepairStore repair, MachineStore machines, int streak, Duration lookBack, MeterRegistry meters) {
        this(repair, machines, new AutoDrain(streak, 0.1), lookBack, meters);
    }

    public AutoDrainSweep(RepairStore repair, MachineStore machines, AutoDrain rule, Duration lookBack, MeterRegistry meters) {
        this.repair = repair;
        this.machines = machines;
        this.rule = rule;
        this.lookBack = lookBack;
        this.meters = meters;
    }

    /** The most ended attempts of one machine read at a sweep (an index scan of the newest). */
    static final int MAX_WINDOW = 10_000;

    @Override
    public String name() {
        return "auto-drain";
    }

    @Override
    public int run(Instant now) {
        List<AutoDrain.Candidate> candidates = new ArrayList<>();
        for (String machine : repair.machinesWithRecentPlatformFailures(now.minus(lookBack)).stream().sorted().toList()) {
            machines.get(machine).ifPresent(m -> {
                // more than the streak: losses the machine's agent outlived are not evidence, and the attempts one loss
                // ended (as many as the machine takes at once) are one piece of it (AutoDrain)
                int window = (int) Math.min(MAX_WINDOW, (long) rule.streak() * (m.machine().maxLiveAttempts() + 2));
                RepairStore.Outcomes outcomes = repair.lastOutcomes(machine, window);
                candidates.add(new AutoDrain.Candidate(machine, m.machine().region(), outcomes.joinedAt(),
                        outcomes.ended().stream().map(e -> new AutoDrain.Ended(e.reason(), e.finishedAt())).toList()));
            });
        }
        if (candidates.isEmpty()) {
            withheldBefore = Set.of();
            return 0;
        }
        Map<String, AutoDrain.Region> regions = new HashMap<>();
        machines.statuses().regionsDrainedSince(now.minus(HOUR)).forEach((r, c) -> regions.put(r, new AutoDrain.Region(c[0], c[1])));
        int drained = 0;
        Set<String> withheldNow = new HashSet<>();
        for (AutoDrain.Action action : rule.decide(candidates, regions)) {
            switch (action) {
                case AutoDrain.Action.Drain d -> {
                    if (machines.statuses().autoDrain(d.machineId(), d.reason())) {
                        log.warn("machine {} {}", d.machineId(), d.reason());
                        drained++;
                    }
                }
                case AutoDrain.Action.Withhold w -> {
                    if (withheldNow.add(w.machineId()) && !withheldBefore.contains(w.machineId())) {
                        log.warn("machine {} {}", w.machineId(), w.reason());
                    }
                }
            }
        }
        long withheld = withheldNow.stream().filter(m -> !withheldBefore.contains(m)).count();
        withheldBefore = Set.copyOf(withheldNow);
        meters.counter("reconciler.actions", "kind", "machine-drained").increment(drained);
        meters.counter("reconciler.actions", "kind", "machine-drain-withheld").increment(withheld);
        return drained;
    }
}
