package io.fleetjobs.scheduler.core;

import java.util.Map;
import java.util.stream.Collectors;

/** The machine carries every label the job requires, with the required value. */
final class LabelFilter implements MachineFilter {

    @Override
    public String name() {
        return "labels";
    }

    @Override
    public Stage stage() {
        return Stage.ATTRIBUTE;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        Map<String, String> required = job.labels();
        if (required.isEmpty()) {
            return true;
        }
        Map<String, String> carried = machine.view.machine().labels();
        for (Map.Entry<String, String> label : required.entrySet()) {
            if (!label.getValue().equals(carried.get(label.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean appliesTo(PendingJob job) {
        return !job.labels().isEmpty();
    }

    @Override
    public String explain(PendingJob job, int machines) {
        String labels = job.labels().entrySet().stream()
                .map(label -> label.getKey() + "=" + label.getValue())
                .collect(Collectors.joining(", "));
        String what = job.labels().size() == 1 ? " label " : " one of the labels ";
        return MachineFilter.counted(machines, "lacks", "lack") + what + labels;
    }
}
