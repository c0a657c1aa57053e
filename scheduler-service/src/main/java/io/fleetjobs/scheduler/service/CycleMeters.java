package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.UnplacedKind;
import io.fleetjobs.scheduler.core.Unplaced;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.Map;

/** The meters of the scheduling cycle; {@link SchedulerMeters} says how they are exposed. */
final class CycleMeters {
    final Timer cycle;
    final Timer claim;
    final Timer snapshot;
    final Timer plan;
    final Timer commit;
    final Counter placements;
    final Counter conflicts;
    final Counter backfills;
    private final Map<UnplacedKind, Counter> unschedulable = new EnumMap<>(UnplacedKind.class);

    CycleMeters(MeterRegistry meters) {
        cycle = Timer.builder("scheduler.cycle").description("one claim-plan-commit cycle")
                .publishPercentiles(0.5, 0.99).register(meters);
        claim = Timer.builder("scheduler.claim").description("claiming a batch of queued jobs").register(meters);
        snapshot = Timer.builder("scheduler.snapshot").description("reading machines and tenants").register(meters);
        plan = Timer.builder("scheduler.plan").description("the pure placement engine").register(meters);
        commit = Timer.builder("scheduler.commit").description("writing a plan").register(meters);
        placements = Counter.builder("scheduler.placements").description("attempts placed").register(meters);
        conflicts = Counter.builder("scheduler.conflicts")
                .description("placements refused at commit because another replica took the room").register(meters);
        backfills = Counter.builder("scheduler.backfills")
                .description("jobs placed on the room a waiting gang holds, ending before it can start").register(meters);
        for (UnplacedKind kind : UnplacedKind.values()) {
            unschedulable.put(kind, unschedulable(meters, kind));
        }
    }

    /** Jobs a cycle could not place, by kind; registered at zero for every kind by {@link SchedulerMeters}. */
    static Counter unschedulable(MeterRegistry meters, UnplacedKind kind) {
        return Counter.builder("scheduler.unschedulable").description("jobs a cycle could not place, by kind")
                .tag("kind", kind.name()).register(meters);
    }

    void unschedulable(UnplacedKind kind) {
        unschedulable.get(kind).increment();
    }
}
