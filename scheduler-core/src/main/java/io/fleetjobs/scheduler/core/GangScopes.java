package io.fleetjobs.scheduler.core;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where a gang may be placed whole, one scope after another: anywhere (no scope); in its region, or else in each
 * region of the fleet in order ({@link PendingJob#SAME_REGION}); on machines of one value of a label, each value
 * in order ({@code label:KEY}), or the value the job itself asks for. Each scope is given as the replica to place:
 * the job of one replica, held to the scope's region and labels.
 */
final class GangScopes {
    private GangScopes() {
    }

    static List<PendingJob> of(PendingJob gang, List<String> regions, List<MachineState> machines) {
        String scope = gang.gangScope();
        if (scope == null) {
            return List.of(gang.replicaIn(gang.region(), gang.labels()));
        }
        if (scope.equals(PendingJob.SAME_REGION)) {
            if (gang.region() != null) {
                return List.of(gang.replicaIn(gang.region(), gang.labels()));
            }
            return regions.stream().map(region -> gang.replicaIn(region, gang.labels())).toList();
        }
        String key = scope.substring(PendingJob.SAME_LABEL.length());
        if (gang.labels().containsKey(key)) {
            return List.of(gang.replicaIn(gang.region(), gang.labels()));
        }
        TreeSet<String> values = new TreeSet<>();
        for (MachineState machine : machines) {
            String value = machine.view.machine().labels().get(key);
            if (value != null) {
                values.add(value);
            }
        }
        return values.stream().map(value -> {
            Map<String, String> labels = new TreeMap<>(gang.labels());
            labels.put(key, value);
            return gang.replicaIn(gang.region(), labels);
        }).toList();
    }

    static String describe(String scope) {
        return scope.equals(PendingJob.SAME_REGION) ? "region" : "value of label " + scope.substring(PendingJob.SAME_LABEL.length());
    }
}
