package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.MachineStatus;

/**
 * A machine during one plan: its snapshot view and the free capacity left after the placements the
 * plan has made on it so far. Belongs to one plan call; never shared between calls.
 *
 * <p>Free capacity only goes down within a plan. The index relies on that (see {@link MachineIndex}),
 * and so does the memory of job shapes known not to fit.
 */
final class MachineState {
    final MachineView view;
    private long freeCpuMillis;
    private long freeMemoryMb;
    private int freeGpus;

    MachineState(MachineView view) {
        this.view = view;
        this.freeCpuMillis = view.freeCpuMillis();
        this.freeMemoryMb = view.freeMemoryMb();
        this.freeGpus = view.freeGpuCount();
    }

    private static final MachineView PROBE_VIEW =
            new MachineView("", "", null, null, 0, 0, 0, 0, 0, 0, MachineStatus.READY, null);

    /** A key for searching an index: sorts before every machine with this many free GPUs and CPU or more. */
    static MachineState probe(int freeGpus, long freeCpuMillis) {
        MachineState probe = new MachineState(PROBE_VIEW);
        probe.freeGpus = freeGpus;
        probe.freeCpuMillis = freeCpuMillis;
        probe.freeMemoryMb = Long.MIN_VALUE;
        return probe;
    }

    String id() {
        return view.id();
    }

    long freeCpuMillis() {
        return freeCpuMillis;
    }

    long freeMemoryMb() {
        return freeMemoryMb;
    }

    int freeGpus() {
        return freeGpus;
    }

    /** Takes what the job needs. The caller has checked that it fits. */
    void take(PendingJob job) {
        freeCpuMillis -= job.cpuMillis();
        freeMemoryMb -= job.memoryMb();
        freeGpus -= job.gpuCount();
    }

    @Override
    public String toString() {
        return view.id() + " (free " + freeCpuMillis + "m CPU, " + freeMemoryMb + " MB, " + freeGpus + " GPUs)";
    }
}
