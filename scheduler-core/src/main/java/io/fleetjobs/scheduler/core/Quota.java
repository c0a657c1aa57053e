package io.fleetjobs.scheduler.core;

/**
 * The most a tenant may hold at once, over all its running and scheduled attempts. A null
 * component is unlimited.
 */
public record Quota(Long cpuMillis, Long memoryMb, Integer gpuCount) {

    public static final Quota UNLIMITED = new Quota(null, null, null);

    public Quota {
        if ((cpuMillis != null && cpuMillis < 0) || (memoryMb != null && memoryMb < 0)
                || (gpuCount != null && gpuCount < 0)) {
            throw new IllegalArgumentException("a quota must not be negative");
        }
    }
}
