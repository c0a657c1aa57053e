package io.fleetjobs.agent.process;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How the {@link ProcessRunner} holds attempts apart and bounds them (WorkerProperties {@code jobs.worker.isolation.*}).
 *
 * @param sandbox           whether to run attempts in a {@link Sandbox} when the agent is root (and unshare works)
 * @param firstUid          the first uid of the attempts' range; each running attempt takes one of its own
 * @param uidCount          how many uids the range has (so how many attempts may run at once)
 * @param tmpBytes          the size of each attempt's private /tmp
 * @param cgroupParent      the cgroup under which each attempt gets one ({@code <parent>/<jobId>-<attempt>})
 * @param minHeadroomMb     memory allowed above the job's {@code memoryMb}: the larger of this and
 * @param headroomPercent   this share of {@code memoryMb}
 * @param pidsMax           the most processes (and threads) an attempt may have; null for no limit
 * @param workDirCapBytes   the most an attempt's working directory may hold before the agent kills it; 0 for no cap
 * @param diskCheckInterval how often the working directory is measured
 * @param retention         how long an ended attempt's directory is kept (its logs' tails went with its report)
 * @param deviceDir         where the GPUs' device nodes are ({@code /dev}; tests point it elsewhere): in a sandbox each
 *                          {@code nvidia<N>} there that is not one of the attempt's GPUs is covered with /dev/null
 * @param diskReserveBytes  the free space kept on the disk of the working directories: below it, the attempt holding
 *                          the most there is killed ({@link DiskPressure}); -1 for the default, 5% and at least 1 GiB
 * @param userNamespaces    whether a job may create user namespaces of its own (off by default: each attempt then runs in
 *                          a user namespace of its own that may hold none, as Docker's default seccomp profile denies
 *                          them, since a job that is root in a namespace of its own reaches much more of the kernel)
 */
public record SandboxSettings(boolean sandbox, int firstUid, int uidCount, long tmpBytes, String cgroupParent,
        long minHeadroomMb, int headroomPercent, Integer pidsMax, long workDirCapBytes, Duration diskCheckInterval,
        Duration retention, Path deviceDir, long diskReserveBytes, boolean userNamespaces) {
    public static final Path DEV = Path.of("/dev");

    public SandboxSettings(boolean sandbox, int firstUid, int uidCount, long tmpBytes, String cgroupParent,
            long minHeadroomMb, int headroomPercent, Integer pidsMax, long workDirCapBytes, Duration diskCheckInterval,
            Duration retention, Path deviceDir) {
        this(sandbox, firstUid, uidCount, tmpBytes, cgroupParent, minHeadroomMb, headroomPercent, pidsMax,
                workDirCapBytes, diskCheckInterval, retention, deviceDir, -1, false);
    }

    public SandboxSettings(boolean sandbox, int firstUid, int uidCount, long tmpBytes, String cgroupParent,
            long minHeadroomMb, int headroomPercent, Integer pidsMax, long workDirCapBytes, Duration diskCheckInterval,
            Duration retention) {
        this(sandbox, firstUid, uidCount, tmpBytes, cgroupParent, minHeadroomMb, headroomPercent, pidsMax,
                workDirCapBytes, diskCheckInterval, retention, DEV);
    }

    /**
     * The defaults: a sandbox, uids 61000-61999, a 256 MiB /tmp, cgroups under {@code fleetjobs-agent}, a
     * memory headroom of 10% and at least 64 MiB (512 MiB asked: a limit of 576 MiB), 4096 processes, a 10 GiB
     * working directory measured every 10 s, directories kept 1 h.
     */
    public static final SandboxSettings DEFAULT = new SandboxSettings(true, 61000, 1000, 256L << 20, "fleetjobs-agent",
            64, 10, 4096, 10L << 30, Duration.ofSeconds(10), Duration.ofHours(1));

    /** Today's behaviour without isolation or limits (tests of the plain runner). */
    public static final SandboxSettings NONE = new SandboxSettings(false, 61000, 1000, 256L << 20, "fleetjobs-agent",
            64, 10, null, 0, Duration.ofSeconds(10), Duration.ofDays(3650));

    public SandboxSettings {
        deviceDir = deviceDir == null ? DEV : deviceDir;
        if (sandbox && (firstUid <= 0 || uidCount <= 0)) {
            throw new IllegalArgumentException("the attempts' uid range must be positive and not root: " + firstUid
                    + " + " + uidCount);
        }
        if (minHeadroomMb < 0 || headroomPercent < 0 || workDirCapBytes < 0) {
            throw new IllegalArgumentException("headroom and caps must not be negative");
        }
    }

    public SandboxSettings withSandbox(boolean on) {
        return new SandboxSettings(on, firstUid, uidCount, tmpBytes, cgroupParent, minHeadroomMb, headroomPercent,
                pidsMax, workDirCapBytes, diskCheckInterval, retention, deviceDir, diskReserveBytes, userNamespaces);
    }

    public SandboxSettings withWorkDirCap(long bytes, Duration every) {
        return new SandboxSettings(sandbox, firstUid, uidCount, tmpBytes, cgroupParent, minHeadroomMb, headroomPercent,
                pidsMax, bytes, every, retention, deviceDir, diskReserveBytes, userNamespaces);
    }

    /**
     * The cgroup parent of one machine's agent, {@code <cgroupParent>/<machineId>}: an agent's restart cleanup
     * removes the attempt cgroups under its own parent only, never those of another agent on the same host.
     */
    public SandboxSettings forMachine(String machineId) {
        String name = machineId.replaceAll("[^A-Za-z0-9._-]", "_");
        return new SandboxSettings(sandbox, firstUid, uidCount, tmpBytes, cgroupParent + "/" + name, minHeadroomMb,
                headroomPercent, pidsMax, workDirCapBytes, diskCheckInterval, retention, deviceDir, diskReserveBytes,
                userNamespaces);
    }

    public SandboxSettings withDeviceDir(Path dir) {
        return new SandboxSettings(sandbox, firstUid, uidCount, tmpBytes, cgroupParent, minHeadroomMb, headroomPercent,
                pidsMax, workDirCapBytes, diskCheckInterval, retention, dir, diskReserveBytes, userNamespaces);
    }

    public SandboxSettings withDiskReserve(long bytes) {
        return new SandboxSettings(sandbox, firstUid, uidCount, tmpBytes, cgroupParent, minHeadroomMb, headroomPercent,
                pidsMax, workDirCapBytes, diskCheckInterval, retention, deviceDir, bytes, userNamespaces);
    }

    public SandboxSettings withUserNamespaces(boolean allowed) {
        return new SandboxSettings(sandbox, firstUid, uidCount, tmpBytes, cgroupParent, minHeadroomMb, headroomPercent,
                pidsMax, workDirCapBytes, diskCheckInterval, retention, deviceDir, diskReserveBytes, allowed);
    }

    public SandboxSettings withRetention(Duration keep) {
        return new SandboxSettings(sandbox, firstUid, uidCount, tmpBytes, cgroupParent, minHeadroomMb, headroomPercent,
                pidsMax, workDirCapBytes, diskCheckInterval, keep, deviceDir, diskReserveBytes, userNamespaces);
    }
}
