package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.UnplacedKind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Says why no machine fits a job: asks every machine of the snapshot (healthy or not) the filter chain
 * and counts each under the first filter that rejects it, giving e.g.
 * {@code "0 of 12 machines fit: 9 lack GPU type H100, 3 have fewer than 4 free GPUs"}, listed in
 * filter order. A full scan, unlike placement: unplaced jobs are rare, and the caller does not decide
 * them again every cycle.
 *
 * <p>The job can never fit ({@link UnplacedKind#CAN_NEVER_FIT}) when every machine is rejected by a
 * permanent filter, or there is no machine at all; otherwise it does not fit now.
 */
final class Explainer {
    private final List<MachineState> machines;
    private final FilterChain filters;

    Explainer(List<MachineState> machines, FilterChain filters) {
        this.machines = machines;
        this.filters = filters;
    }

    /**
     * Why no machine fits the job, and whether the job's attributes alone (region, GPU types, labels)
     * ruled out every machine, which makes the same explanation hold for any job with those attributes.
     */
    Explanation explain(PendingJob job) {
        if (machines.isEmpty()) {
            return new Explanation(new Unplaced(UnplacedKind.CAN_NEVER_FIT, Unplaced.NO_MACHINES, null), true);
        }
        FilterChain applicable = filters.forJob(job);
        int[] rejected = new int[applicable.size()];
        for (MachineState machine : machines) {
            int filter = applicable.firstRejecting(job, machine);
            if (filter < 0) {
                throw new IllegalStateException("machine " + machine + " fits job " + job.jobId()
                        + ", but the index did not offer it");
            }
            rejected[filter]++;
        }
        boolean permanent = true;
        boolean attributesAlone = true;
        Map<String, Integer> rejectedBy = new LinkedHashMap<>();
        StringJoiner reasons = new StringJoiner(", ");
        for (int i = 0; i < rejected.length; i++) {
            if (rejected[i] > 0) {
                MachineFilter filter = applicable.get(i);
                permanent &= filter.permanent();
                attributesAlone &= filter.stage() == MachineFilter.Stage.ATTRIBUTE;
                rejectedBy.put(filter.name(), rejected[i]);
                reasons.add(filter.explain(job, rejected[i]));
            }
        }
        String header = machines.size() == 1 ? "0 of 1 machine fits: " : "0 of " + machines.size() + " machines fit: ";
        UnplacedKind kind = permanent ? UnplacedKind.CAN_NEVER_FIT : UnplacedKind.DOES_NOT_FIT_NOW;
        return new Explanation(new Unplaced(kind, header + reasons, rejectedBy), attributesAlone);
    }

    /**
     * How many machines of the snapshot (healthy or not) no permanent filter rejects for the job: those that would
     * take it once enough of what runs there ended and they were healthy. Fewer than a gang's replicas, and the
     * gang can never fit this fleet. A full scan, as {@link #explain}.
     */
    int couldEverTake(PendingJob job) {
        FilterChain applicable = filters.forJob(job);
        int count = 0;
        for (MachineState machine : machines) {
            int filter = applicable.firstRejecting(job, machine);
            if (filter < 0 || !applicable.get(filter).permanent()) {
                count++;
            }
        }
        return count;
    }

    /** An explanation, and whether it depends on the job's attributes alone, not on its amounts. */
    record Explanation(Unplaced unplaced, boolean attributesAlone) {
    }
}
