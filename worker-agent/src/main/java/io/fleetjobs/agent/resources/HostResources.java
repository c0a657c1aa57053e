package io.fleetjobs.agent.resources;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * The CPU and memory this process may use, as the JVM sees them. Both are container-aware: inside a
 * container with limits, the JVM reports the cgroup's CPU quota and memory limit rather than the host's.
 */
public final class HostResources {
    private HostResources() {
    }

    /** The available processors, in millicores. */
    public static long cpuMillis() {
        return Runtime.getRuntime().availableProcessors() * 1000L;
    }

    /** Total physical memory (or the container's limit), in MiB. */
    public static long memoryMb() {
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return os.getTotalMemorySize() / (1024 * 1024);
    }
}
