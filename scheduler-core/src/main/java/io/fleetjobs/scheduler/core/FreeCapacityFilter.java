package io.fleetjobs.scheduler.core;

import java.util.Locale;

/**
 * The machine has the free capacity the job needs in one dimension, counting what earlier placements
 * of the same plan took. A rejection here lasts only until attempts on the machine end.
 */
final class FreeCapacityFilter implements MachineFilter {
    private final Dimension dimension;

    FreeCapacityFilter(Dimension dimension) {
        this.dimension = dimension;
    }

    @Override
    public String name() {
        return "free-" + dimension.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public Stage stage() {
        return Stage.CAPACITY;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        return dimension.free(machine) >= dimension.request(job);
    }

    @Override
    public String explain(PendingJob job, int machines) {
        return MachineFilter.counted(machines, "has", "have") + " " + dimension.shortOfFree(dimension.request(job));
    }
}
