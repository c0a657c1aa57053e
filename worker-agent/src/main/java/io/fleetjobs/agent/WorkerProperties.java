package io.fleetjobs.agent;

import io.fleetjobs.agent.process.Egress;
import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.process.SandboxSettings;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The agent's configuration, {@code jobs.worker.*} (also {@code JOBS_WORKER_*}). Resources left
 * unset are detected: CPU count, memory, and GPUs with {@code nvidia-smi}.
 *
 * @param killGrace how long a process group has after SIGTERM before SIGKILL (default 5 s) when canceled or timed out;
 *                  the lease's fence uses the grace the scheduler says at join ({@code jobs.agent.kill-grace}), this
 *                  one only where an older scheduler says none
 * @param logCapBytes the most of each of stdout and stderr kept on disk per attempt
 * @param joinTimeout how long to keep trying to reach the scheduler before giving up at start
 * @param passEnv the agent's environment variables a job sees (names; {@code NAME*} for a prefix); nothing else
 *                of the agent's environment reaches a job (its join token, its Java options), only these, the
 *                job's own {@code env} and {@code JOBS_JOB_ID}, {@code JOBS_ATTEMPT}
 * @param isolation how attempts are held apart on the machine and bounded (see {@link Isolation})
 * @param address where this machine's jobs can be reached by the other replicas of their gangs (a host name or
 *                address; default: the host's name), told to the scheduler at join
 * @param maxLiveAttempts the most attempts this machine runs at once, told to the scheduler at join; default: what half
 *                 the agent's heap holds ({@link AttemptsAtOnce}), at most the sandbox's uids
 * @param simulate the fleet simulator: when {@code simulate.machines} names a CSV file, this process plays every
 *                 machine in it instead of this one (API.md, "Fleet simulator")
 */
@ConfigurationProperties("jobs.worker")
public record WorkerProperties(
        String schedulerUrl,
        String machineId,
        String region,
        Map<String, String> labels,
        BigDecimal cpu,
        Long memoryMb,
        Integer gpuCount,
        String gpuType,
        String joinToken,
        Duration heartbeatInterval,
        Path workDir,
        Duration killGrace,
        Long logCapBytes,
        Duration joinTimeout,
        List<String> passEnv,
        Simulate simulate,
        Isolation isolation,
        String address,
        Integer maxLiveAttempts) {

    /**
     * How attempts are held apart and bounded, {@code jobs.worker.isolation.*}. Takes effect where the agent runs as
     * root (a sandbox: own uid, pid/mount/IPC namespaces, private /tmp) and the machine has a writable cgroup
     * hierarchy (limits); elsewhere the agent logs at start what it cannot enforce.
     *
     * @param sandbox               run attempts in a sandbox when root (default true)
     * @param firstUid              the attempts' uid range starts here (default 61000) ... (agents sharing a host
     *                              need ranges of their own: an attempt's uid is unique only among its agent's)
     * @param uidCount              ... and has this many (default 1000), one per running attempt, gid the same
     * @param tmpMb                 the size of each attempt's private /tmp, a tmpfs (default 256)
     * @param cgroupParent          the cgroup the attempts' cgroups go under, {@code <cgroupParent>/<machineId>}
     *                              (default {@code fleetjobs-agent})
     * @param memoryHeadroomMb      memory allowed above {@code memoryMb}: the larger of this (default 64) ...
     * @param memoryHeadroomPercent ... and this share of {@code memoryMb} (default 10)
     * @param pidsMax               the most processes of one attempt (default 4096)
     * @param workDirCapMb          the most an attempt's working directory may hold before it is killed (default 10240; 0: no cap)
     * @param diskCheckInterval     how often it is measured (default 10s)
     * @param attemptRetention      how long an ended attempt's directory is kept (default 1h)
     * @param deviceDir             where the GPUs' device nodes are (default /dev; tests point it elsewhere)
     * @param userNamespaces        let jobs create user namespaces of their own (default false: a job that is root in a
     *                              namespace of its own reaches much more of the kernel; nested container tools need it)
     * @param egressRules           refuse the attempts' connections to the scheduler's agent API and to
     *                              {@code denyEgress}, with nftables rules on their uids (default true; a sandbox only)
     * @param denyEgress            where else attempts may not connect ({@link io.fleetjobs.agent.process.Egress#parse}:
     *                              {@code ADDRESS[/PREFIX][:PORT]}, {@code [IPV6]:PORT}, {@code HOST[:PORT]}, {@code *:PORT});
     *                              default the cloud's metadata endpoint, 169.254.169.254 (a list replaces it)
     * @param egressRefresh         how often the rules' host names (the scheduler's, those of {@code denyEgress}) are
     *                              resolved again, and the rules applied again where they moved (default 1m; 0: never,
     *                              as resolved at start)
     */
    public record Isolation(Boolean sandbox, Integer firstUid, Integer uidCount, Long tmpMb, String cgroupParent,
            Long memoryHeadroomMb, Integer memoryHeadroomPercent, Integer pidsMax, Long workDirCapMb,
            Duration diskCheckInterval, Duration attemptRetention, Path deviceDir, Boolean userNamespaces,
            Boolean egressRules, List<String> denyEgress, Duration egressRefresh) {

        public Isolation(Boolean sandbox, Integer firstUid, Integer uidCount, Long tmpMb, String cgroupParent,
                Long memoryHeadroomMb, Integer memoryHeadroomPercent, Integer pidsMax, Long workDirCapMb,
                Duration diskCheckInterval, Duration attemptRetention, Path deviceDir, Boolean userNamespaces,
                Boolean egressRules, List<String> denyEgress) {
            this(sandbox, firstUid, uidCount, tmpMb, cgroupParent, memoryHeadroomMb, memoryHeadroomPercent, pidsMax,
                    workDirCapMb, diskCheckInterval, attemptRetention, deviceDir, userNamespaces, egressRules, denyEgress,
                    null);
        }

        public Isolation(Boolean sandbox, Integer firstUid, Integer uidCount, Long tmpMb, String cgroupParent,
                Long memoryHeadroomMb, Integer memoryHeadroomPercent, Integer pidsMax, Long workDirCapMb,
                Duration diskCheckInterval, Duration attemptRetention, Path deviceDir, Boolean userNamespaces) {
            this(sandbox, firstUid, uidCount, tmpMb, cgroupParent, memoryHeadroomMb, memoryHeadroomPercent, pidsMax,
                    workDirCapMb, diskCheckInterval, attemptRetention, deviceDir, userNamespaces, null, null);
        }

        @org.springframework.boot.context.properties.bind.ConstructorBinding
        public Isolation {
            egressRules = egressRules == null || egressRules;
            denyEgress = denyEgress == null ? Egress.DEFAULT_DENIED
                    : List.copyOf(denyEgress);
            egressRefresh = egressRefresh == null ? Duration.ofMinutes(1) : egressRefresh;
            if (egressRefresh.isNegative()) {
                throw new IllegalArgumentException("jobs.worker.isolation.egress-refresh must not be negative: "
                        + egressRefresh);
            }
        }

        SandboxSettings settings() {
            var d = SandboxSettings.DEFAULT;
            return new SandboxSettings(
                    sandbox == null ? d.sandbox() : sandbox,
                    firstUid == null ? d.firstUid() : firstUid,
                    uidCount == null ? d.uidCount() : uidCount,
                    tmpMb == null ? d.tmpBytes() : tmpMb << 20,
                    cgroupParent == null || cgroupParent.isBlank() ? d.cgroupParent() : cgroupParent,
                    memoryHeadroomMb == null ? d.minHeadroomMb() : memoryHeadroomMb,
                    memoryHeadroomPercent == null ? d.headroomPercent() : memoryHeadroomPercent,
                    pidsMax == null ? d.pidsMax() : pidsMax,
                    workDirCapMb == null ? d.workDirCapBytes() : workDirCapMb << 20,
                    diskCheckInterval == null ? d.diskCheckInterval() : diskCheckInterval,
                    attemptRetention == null ? d.retention() : attemptRetention,
                    deviceDir == null ? d.deviceDir() : deviceDir,
                    d.diskReserveBytes(),
                    userNamespaces == null ? d.userNamespaces() : userNamespaces);
        }
    }

    /** @param machines the CSV file of simulated machines ({@code id,region,cpu,memoryMb,gpuCount,gpuType,labels}) */
    public record Simulate(Path machines) {
    }

    public WorkerProperties(String schedulerUrl, String machineId, String region, Map<String, String> labels,
            BigDecimal cpu, Long memoryMb, Integer gpuCount, String gpuType, String joinToken, Duration heartbeatInterval,
            Path workDir, Duration killGrace, Long logCapBytes, Duration joinTimeout, List<String> passEnv,
            Simulate simulate, Isolation isolation, String address) {
        this(schedulerUrl, machineId, region, labels, cpu, memoryMb, gpuCount, gpuType, joinToken, heartbeatInterval,
                workDir, killGrace, logCapBytes, joinTimeout, passEnv, simulate, isolation, address, null);
    }

    @org.springframework.boot.context.properties.bind.ConstructorBinding
    public WorkerProperties {
        if (maxLiveAttempts != null && maxLiveAttempts < 1) {
            throw new IllegalArgumentException("jobs.worker.max-live-attempts must be at least 1: " + maxLiveAttempts);
        }
        schedulerUrl = schedulerUrl == null || schedulerUrl.isBlank() ? "http://localhost:8082" : schedulerUrl;
        region = region == null || region.isBlank() ? "default" : region;
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        heartbeatInterval = heartbeatInterval == null ? Duration.ofSeconds(2) : heartbeatInterval;
        workDir = workDir == null ? Path.of(".fleetjobs-worker") : workDir;
        killGrace = killGrace == null ? Duration.ofSeconds(5) : killGrace;
        logCapBytes = logCapBytes == null ? 64L << 20 : logCapBytes;
        joinTimeout = joinTimeout == null ? Duration.ofSeconds(30) : joinTimeout;
        simulate = simulate == null ? new Simulate(null) : simulate;
        isolation = isolation == null
                ? new Isolation(null, null, null, null, null, null, null, null, null, null, null, null, null)
                : isolation;
        passEnv = passEnv == null ? ProcessRunner.DEFAULT_PASS_ENV : List.copyOf(passEnv);
    }

    /** Whether this process is the fleet simulator. */
    public boolean simulating() {
        return simulate.machines() != null;
    }

    /** These settings for one simulated machine: its own id, region and labels; the rest shared. */
    WorkerProperties forMachine(String id, String machineRegion, Map<String, String> machineLabels) {
        return new WorkerProperties(schedulerUrl, id, machineRegion, machineLabels, null, null, null, null, joinToken,
                heartbeatInterval, workDir, killGrace, logCapBytes, joinTimeout, passEnv, simulate,
                isolation, address, maxLiveAttempts);
    }
}
