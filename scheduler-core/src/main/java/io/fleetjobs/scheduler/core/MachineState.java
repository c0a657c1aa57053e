package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.Amounts;
import io.fleetjobs.model.FleetMachine;

/**
 * A machine during one plan: its snapshot view and the free capacity left after the placements the
 * plan has made on it so far. Belongs to one plan call; never shared between calls.
 *
 * <p>Free capacity only goes down within a plan, but for a gang that could not be placed whole, which gives back
 * exactly what it took before anything else is decided; the memory of job shapes known not to fit relies on that.
 */
final class MachineState {
    final MachineView view;
    private long freeCpuMillis;
    private long freeMemoryMb;
    private int freeGpus;
    private int freeAttempts;
    /** Where the machine sits in the index: its pool, bucket row and column, and position in the bucket. */
    Pool pool;
    int row;
    int column;
    int slot;

    MachineState(MachineView view) {
        this.view = view;
        Amounts free = view.machine().free();
        this.freeCpuMillis = free.cpuMillis();
        this.freeMemoryMb = free.memoryMb();
        this.freeGpus = free.gpus();
        this.freeAttempts = view.machine().freeAttempts();
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

    /** How many more attempts the machine may take ({@link io.fleetjobs.model.FleetMachine#UNLIMITED}: any). */
    int freeAttempts() {
        return freeAttempts;
    }

    /** Takes what the job needs, and one of the machine's attempts. The caller has checked that it fits. */
    void take(PendingJob job) {
        freeCpuMillis -= job.cpuMillis();
        freeMemoryMb -= job.memoryMb();
        freeGpus -= job.gpuCount();
        if (freeAttempts != FleetMachine.UNLIMITED) {
            freeAttempts--;
        }
    }

    /** Gives back what the job took: a gang that could not be placed whole undoes its replicas. */
    void give(PendingJob job) {
        freeCpuMillis += job.cpuMillis();
        freeMemoryMb += job.memoryMb();
        freeGpus += job.gpuCount();
        if (freeAttempts != FleetMachine.UNLIMITED) {
            freeAttempts++;
        }
    }

    @Override
    public String toString() {
        return view.id() + " (free " + freeCpuMillis + "m CPU, " + freeMemoryMb + " MB, " + freeGpus + " GPUs)";
    }
}
