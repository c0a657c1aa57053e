package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.MachineStatus;

/** The machine's status is READY: SUSPECT, LOST and DRAINING machines take nothing new. */
final class ReadyFilter implements MachineFilter {

    @Override
    public String name() {
        return "ready";
    }

    @Override
    public Stage stage() {
        return Stage.HEALTH;
    }

    @Override
    public boolean accepts(PendingJob job, MachineState machine) {
        return isReady(machine.view);
    }

    static boolean isReady(MachineView machine) {
        return machine.machine().status() == MachineStatus.READY;
    }

    @Override
    public String explain(PendingJob job, int machines) {
        return MachineFilter.counted(machines, "is", "are") + " not READY";
    }
}
