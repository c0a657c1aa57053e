package io.fleetjobs.scheduler.core;

import java.util.Locale;

/**
 * The machine is big enough for the job in one dimension, counting all it has, used or not. A machine
 * this rejects could never host the job, however empty it became.
 */
final class TotalCapacityFilter implements MachineFilter {
    private final Dimension dimension;

    TotalCapacityFilter(Dimension dimension) {
        this.dimension = dimension;
    }

    @Override
    public String name() {
        return "total-" + dimension.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public Stage stage() {
        return Stage.SIZE;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        return dimension.total(machine.view) >= dimension.request(job);
    }

    @Override
    public boolean appliesTo(PendingJob job) {
        return dimension.request(job) > 0;
    }

    @Override
    public String explain(PendingJob job, int machines) {
        return MachineFilter.counted(machines, "has", "have") + " " + dimension.shortOfTotal(dimension.request(job));
    }
}
