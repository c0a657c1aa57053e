package io.fleetjobs.model;

/**
 * An amount of the three counted resources: CPU in millicores, memory in MiB, GPUs. The one type for what a
 * machine has, what is allocated on it, what a job asks for, what a tenant uses or may use, and what a batch
 * of placements or ends adds or gives back. Any component may be negative (a difference); {@link #fitsIn}
 * compares component by component.
 */
public record Amounts(long cpuMillis, long memoryMb, int gpus) {
    public static final Amounts ZERO = new Amounts(0, 0, 0);

    /** What a job asks for. */
    public static Amounts of(Resources resources) {
        return new Amounts(resources.cpuMillis(), resources.memoryMb(), resources.gpuCount());
    }

    public Amounts plus(Amounts other) {
        return new Amounts(cpuMillis + other.cpuMillis, memoryMb + other.memoryMb, gpus + other.gpus);
    }

    public Amounts minus(Amounts other) {
        return new Amounts(cpuMillis - other.cpuMillis, memoryMb - other.memoryMb, gpus - other.gpus);
    }

    /** Whether this fits in {@code room} in every dimension. */
    public boolean fitsIn(Amounts room) {
        return cpuMillis <= room.cpuMillis && memoryMb <= room.memoryMb && gpus <= room.gpus;
    }

    public boolean isZero() {
        return cpuMillis == 0 && memoryMb == 0 && gpus == 0;
    }

    @Override
    public String toString() {
        return cpuMillis + "m cpu, " + memoryMb + " MiB, " + gpus + " GPU" + (gpus == 1 ? "" : "s");
    }
}
