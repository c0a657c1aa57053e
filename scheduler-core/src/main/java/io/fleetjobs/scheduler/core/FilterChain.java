package io.fleetjobs.scheduler.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The filters, in the order that decides under which one a rejected machine is counted. A machine
 * fits a job when every filter accepts it; the order changes only the explanation.
 *
 * <p>Why this order: from what lasts to what passes.
 * <ol>
 *   <li>Attributes the job asked for: {@code region}, {@code isolation} (a machine that sandboxes its jobs),
 *       {@code gpu-type}, {@code labels}. Only a change to the job or to the fleet alters them. The region
 *       comes first because it is the job's scope: a machine elsewhere is not worth describing further.</li>
 *   <li>Total size ({@code total-gpu}, {@code total-cpu}, {@code total-memory}): a machine too small
 *       stays too small however empty it gets.</li>
 *   <li>Health ({@code ready}, {@code heartbeat}): lasts until the machine recovers or is replaced; the
 *       free capacity of a machine that takes nothing new does not matter.</li>
 *   <li>Free capacity ({@code free-gpu}, {@code free-cpu}, {@code free-memory}, {@code free-attempts}): passes by
 *       itself as attempts end. GPUs first, being the scarcest, then CPU, then memory, then the number of attempts
 *       the machine runs at once.</li>
 * </ol>
 * Each machine is counted under the first filter that rejects it, so a count names the most durable
 * obstacle, the one a person would have to act on, and a job whose machines are all rejected by
 * permanent filters (the first two groups) is one that can never fit this fleet. Nomad orders its
 * feasibility checks and counts the nodes each one filtered the same way.
 */
final class FilterChain {
    private final MachineFilter[] filters;

    FilterChain(List<MachineFilter> filters) {
        this.filters = filters.toArray(MachineFilter[]::new);
    }

    static FilterChain standard(Duration heartbeatFreshness) {
        return new FilterChain(List.of(
                new RegionFilter(),
                new IsolationFilter(),
                new GpuTypeFilter(),
                new LabelFilter(),
                new TotalCapacityFilter(Dimension.GPU),
                new TotalCapacityFilter(Dimension.CPU),
                new TotalCapacityFilter(Dimension.MEMORY),
                new ReadyFilter(),
                new HeartbeatFilter(heartbeatFreshness),
                new FreeCapacityFilter(Dimension.GPU),
                new FreeCapacityFilter(Dimension.CPU),
                new FreeCapacityFilter(Dimension.MEMORY),
                new AttemptsFilter()));
    }

    /**
     * Every filter but free capacity: the machines that would take the job if enough of what runs there ended
     * ({@link Preemptions}).
     */
    static FilterChain beforeFreeCapacity(Duration heartbeatFreshness) {
        List<MachineFilter> filters = new ArrayList<>(standard(heartbeatFreshness).filters());
        filters.removeIf(f -> f instanceof FreeCapacityFilter || f instanceof AttemptsFilter);
        return new FilterChain(filters);
    }

    /**
     * The filters that the index does not already guarantee for the machines it yields (see
     * {@link MachineIndex}): free capacity, isolation and labels. The candidate search asks only these, the cheap
     * field comparisons first and the label look-ups last (order matters only for explanations, which
     * use {@link #standard}).
     */
    static FilterChain afterIndex() {
        return new FilterChain(List.of(
                new FreeCapacityFilter(Dimension.GPU),
                new FreeCapacityFilter(Dimension.CPU),
                new FreeCapacityFilter(Dimension.MEMORY),
                new AttemptsFilter(),
                new IsolationFilter(),
                new LabelFilter()));
    }

    /** The filters of this chain that could reject a machine for the job, in the same order. */
    FilterChain forJob(PendingJob job) {
        List<MachineFilter> applicable = new ArrayList<>(filters.length);
        for (MachineFilter filter : filters) {
            if (filter.appliesTo(job)) {
                applicable.add(filter);
            }
        }
        return new FilterChain(applicable);
    }

    List<MachineFilter> filters() {
        return List.of(filters);
    }

    /** Whether every filter accepts the machine for the job. */
    boolean accepts(PendingJob job, MachineState machine) {
        return firstRejecting(job, machine) < 0;
    }

    /** The position of the first filter that rejects the machine, or -1 if none does. */
    int firstRejecting(PendingJob job, MachineState machine) {
        for (int i = 0; i < filters.length; i++) {
            if (!filters[i].accepts(job, machine)) {
                return i;
            }
        }
        return -1;
    }

    MachineFilter get(int position) {
        return filters[position];
    }

    int size() {
        return filters.length;
    }
}
