package io.fleetjobs.scheduler.core;

import java.time.Duration;

/**
 * The machine heartbeated within the freshness window (an age equal to the window is fresh). A machine
 * that never heartbeated is not fresh. Catches a machine that went quiet before the reconciler marked
 * it SUSPECT.
 */
final class HeartbeatFilter implements MachineFilter {
    private final Duration freshness;

    HeartbeatFilter(Duration freshness) {
        this.freshness = freshness;
    }

    @Override
    public String name() {
        return "heartbeat";
    }

    @Override
    public Stage stage() {
        return Stage.HEALTH;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        return isFresh(machine.view);
    }

    boolean isFresh(MachineView machine) {
        Duration age = machine.heartbeatAge();
        return age != null && age.compareTo(freshness) <= 0;
    }

    @Override
    public String explain(PendingJob job, int machines) {
        return MachineFilter.counted(machines, "has", "have") + " no heartbeat in the last " + words(freshness);
    }

    /** "30s", "1500ms", "2m". */
    static String words(Duration duration) {
        if (duration.toMillisPart() != 0 || duration.isZero()) {
            return duration.toMillis() + "ms";
        }
        if (duration.toSecondsPart() != 0) {
            return duration.toSeconds() + "s";
        }
        return duration.toMinutes() + "m";
    }
}
