package io.fleetjobs.model.agent;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.GpuDevice;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The wire types between a worker agent and the scheduler's agent API. The agent pulls: its
 * heartbeat says what it runs and how attempts ended; the reply says what to start, what to kill
 * and which final reports are recorded. Level-triggered: a lost message on either path is repaired
 * by the next heartbeat.
 */
public final class AgentProtocol {
    public static final String JOIN_PATH = "/agent/v1/join";
    public static final String HEARTBEAT_PATH = "/agent/v1/heartbeat";
    /** Where an agent pushes the output of followed attempts ({@link LogPush}). */
    public static final String LOGS_PATH = "/agent/v1/logs";

    private AgentProtocol() {
    }

    /**
     * Sent with {@code Authorization: Bearer <cluster join token>}.
     *
     * @param isolation how the agent holds attempts apart on the machine: {@code "sandbox"} (own uid, pid, mount
     *                  and IPC namespaces, a cgroup each) or {@code "none"} (the agent's uid, no limits); optional,
     *                  null from agents that do not say
     * @param gpus      the devices behind {@code gpuCount}, by index; null or empty: devices 0…gpuCount-1
     * @param address   the host name or address at which the machine's jobs can be reached by the other replicas
     *                  of a gang; optional (null: the machine id is used)
     * @param maxLiveAttempts the most attempts the agent runs at once (what its memory holds, or what its operator set);
     *                  optional (null: the scheduler's default, {@code jobs.agent.max-live-attempts})
     * @param isolationGaps with {@code "sandbox"}, what the sandbox does not hold on this machine, where the agent's
     *                  probe at start found a step refused: {@code cgroups}, {@code read-only-machine},
     *                  {@code own-user-namespace}, {@code own-session-keyring}, {@code egress}; optional (null: not said)
     */
    public record JoinRequest(String machineId, String region, Map<String, String> labels, long cpuMillis, long memoryMb,
            int gpuCount, String gpuType, String isolation, List<GpuDevice> gpus, String credential, String address,
            Integer maxLiveAttempts, List<String> isolationGaps) {

        public JoinRequest(String machineId, String region, Map<String, String> labels, long cpuMillis, long memoryMb,
                int gpuCount, String gpuType, String isolation, List<GpuDevice> gpus, String credential, String address,
                Integer maxLiveAttempts) {
            this(machineId, region, labels, cpuMillis, memoryMb, gpuCount, gpuType, isolation, gpus, credential, address,
                    maxLiveAttempts, null);
        }

        public JoinRequest(String machineId, String region, Map<String, String> labels, long cpuMillis, long memoryMb,
                int gpuCount, String gpuType, String isolation, List<GpuDevice> gpus, String credential, String address) {
            this(machineId, region, labels, cpuMillis, memoryMb, gpuCount, gpuType, isolation, gpus, credential, address,
                    null);
        }

        public JoinRequest(String machineId, String region, Map<String, String> labels, long cpuMillis, long memoryMb,
                int gpuCount, String gpuType, String isolation, List<GpuDevice> gpus, String credential) {
            this(machineId, region, labels, cpuMillis, memoryMb, gpuCount, gpuType, isolation, gpus, credential, null);
        }

        public JoinRequest(String machineId, String region, Map<String, String> labels, long cpuMillis, long memoryMb,
                int gpuCount, String gpuType, String isolation, List<GpuDevice> gpus) {
            this(machineId, region, labels, cpuMillis, memoryMb, gpuCount, gpuType, isolation, gpus, null);
        }

        public JoinRequest(String machineId, String region, Map<String, String> labels, long cpuMillis, long memoryMb,
                int gpuCount, String gpuType, String isolation) {
            this(machineId, region, labels, cpuMillis, memoryMb, gpuCount, gpuType, isolation, null);
        }

        public JoinRequest(String machineId, String region, Map<String, String> labels, long cpuMillis, long memoryMb,
                int gpuCount, String gpuType) {
            this(machineId, region, labels, cpuMillis, memoryMb, gpuCount, gpuType, null);
        }

        /** This join without the credential, for a scheduler that does not know the field. */
        public JoinRequest withoutCredential() {
            return new JoinRequest(machineId, region, labels, cpuMillis, memoryMb, gpuCount, gpuType, isolation, gpus, null,
                    address, maxLiveAttempts, isolationGaps);
        }

        /** Never the credential itself: a join may be logged. */
        @Override
        public String toString() {
            return "JoinRequest[machineId=" + machineId + ", region=" + region + ", labels=" + labels + ", cpuMillis="
                    + cpuMillis + ", memoryMb=" + memoryMb + ", gpuCount=" + gpuCount + ", gpuType=" + gpuType
                    + ", isolation=" + isolation + ", gpus=" + gpus + ", credential=" + (credential == null ? "none" : "***")
                    + ", address=" + address + ", isolationGaps=" + isolationGaps + "]";
        }
    }

    /**
     * @param credential the machine's own bearer token for heartbeats; bound to {@code machineId}
     * @param incarnation bumped on each join: attempts of earlier incarnations have been ended
     * @param leaseTtlMs how long the agent's lease lasts after it sent the request a reply renewed it with: at
     *                   its end the agent sends SIGTERM to every attempt (see {@code FencingBudget})
     * @param killGraceMs how long after that the agent sends SIGKILL: the grace the control plane counts on when it
     *                    declares a silent machine lost; optional (null from schedulers older than the field: the
     *                    agent keeps its own)
     */
    public record JoinResponse(String machineId, String credential, long incarnation, long leaseTtlMs,
            long heartbeatIntervalMs, Long killGraceMs) {
        public JoinResponse(String machineId, String credential, long incarnation, long leaseTtlMs,
                long heartbeatIntervalMs) {
            this(machineId, credential, incarnation, leaseTtlMs, heartbeatIntervalMs, null);
        }
    }

    /**
     * @param attempts every attempt the agent runs (state RUNNING) and every final report not yet acknowledged
     * @param waitMs how long the scheduler may hold the reply while there is nothing to start or kill
     */
    public record Heartbeat(String machineId, long incarnation, List<AttemptReport> attempts, long waitMs,
            List<LogFollow> following) {
        public Heartbeat(String machineId, long incarnation, List<AttemptReport> attempts, long waitMs) {
            this(machineId, incarnation, attempts, waitMs, null);
        }
    }

    /**
     * @param leaseTtlMs          the lease this answer renews, counted from the heartbeat's send
     * @param heartbeatIntervalMs how long the agent waits before its next heartbeat when it has nothing new to say:
     *                            the control plane sets it for the fleet's size ({@code HeartbeatCadence}); optional
     *                            (null from older schedulers: the agent keeps the one it joined with)
     */
    public record HeartbeatResponse(long leaseTtlMs, List<Lease> start, List<Kill> kill, List<AttemptRef> ack,
            Long heartbeatIntervalMs, List<LogFollow> follow) {
        public HeartbeatResponse(long leaseTtlMs, List<Lease> start, List<Kill> kill, List<AttemptRef> ack,
                Long heartbeatIntervalMs) {
            this(leaseTtlMs, start, kill, ack, heartbeatIntervalMs, null);
        }

        public HeartbeatResponse(long leaseTtlMs, List<Lease> start, List<Kill> kill, List<AttemptRef> ack) {
            this(leaseTtlMs, start, kill, ack, null);
        }
    }

    /**
     * A stream someone follows (in a {@link HeartbeatResponse}: every stream of the machine's attempts followed now;
     * in a {@link Heartbeat}: the ones the agent ships). Optional on both sides: null from older peers.
     *
     * @param stream {@code stdout} or {@code stderr}
     * @param from   where a reader asked to start: an offset, or negative for the last {@code -from} bytes
     *               ({@code LogWindow.start}); the agent uses it only when it starts shipping the stream
     */
    public record LogFollow(UUID jobId, int attempt, String stream, long from) {
        /** The same stream, whatever the start: what the agent ships is compared by this. */
        public LogFollow key() {
            return new LogFollow(jobId, attempt, stream, 0);
        }
    }

    /**
     * Bytes of a followed stream from {@code offset} (at most {@code LogLimits.PUSH_MAX_BYTES}), sent with the machine
     * credential and the attempt's lease epoch: a push of another epoch, or of an attempt of another machine, is
     * refused (409), so that an incarnation that lost the attempt writes nothing.
     *
     * @param eof whether these bytes end the stream (the attempt ended and its output is all read)
     */
    public record LogPush(String machineId, long incarnation, UUID jobId, int attempt, long epoch, String stream,
            long offset, byte[] data, boolean eof) {
    }

    /** @param followed whether anyone still follows the stream: false, and the agent stops shipping it */
    public record LogPushResponse(boolean followed) {
    }

    /**
     * An attempt to start: the command, its environment, its time limit, and what it holds on the machine, which a
     * sandboxing agent enforces with a cgroup.
     *
     * @param cpuMillis the CPU the job asked for, in millicores; optional (null: no CPU quota)
     * @param memoryMb  the memory the job asked for; optional (null: no memory limit)
     * @param gpus      the indices of the GPUs it holds (empty when none); the agent shows it exactly these
     * @param startWithinMs how long the attempt may still be started, counted from when the scheduler answered (the
     *                  attempt's {@code lease_expires_at} less the database's clock then, so that no two machines'
     *                  clocks are compared): past it the reconciler ends the attempt and retries the job, and the
     *                  agent does not start it; optional (null from older schedulers: no deadline known)
     * @param gang      the attempt's place in its gang; null for a job of one replica
     * @param network   the job's {@code execution.network}: {@code none} for a network of its own; null (older
     *                  schedulers) or {@code host} for the machine's
     */
    public record Lease(UUID jobId, int attempt, long epoch, List<String> command, Map<String, String> env,
            Integer timeoutSeconds, Long cpuMillis, Long memoryMb, List<Integer> gpus, Long startWithinMs, Gang gang,
            String network) {
        public Lease {
            gpus = gpus == null ? List.of() : List.copyOf(gpus);
        }

        public Lease(UUID jobId, int attempt, long epoch, List<String> command, Map<String, String> env,
                Integer timeoutSeconds, Long cpuMillis, Long memoryMb, List<Integer> gpus, Long startWithinMs, Gang gang) {
            this(jobId, attempt, epoch, command, env, timeoutSeconds, cpuMillis, memoryMb, gpus, startWithinMs, gang, null);
        }

        /** Whether the attempt runs in a network of its own. */
        public boolean ownNetwork() {
            return Execution.NO_NETWORK.equals(network);
        }

        public Lease(UUID jobId, int attempt, long epoch, List<String> command, Map<String, String> env,
                Integer timeoutSeconds, Long cpuMillis, Long memoryMb, List<Integer> gpus, Long startWithinMs) {
            this(jobId, attempt, epoch, command, env, timeoutSeconds, cpuMillis, memoryMb, gpus, startWithinMs, null);
        }

        public Lease(UUID jobId, int attempt, long epoch, List<String> command, Map<String, String> env,
                Integer timeoutSeconds, Long cpuMillis, Long memoryMb, List<Integer> gpus) {
            this(jobId, attempt, epoch, command, env, timeoutSeconds, cpuMillis, memoryMb, gpus, null);
        }

        public Lease(UUID jobId, int attempt, long epoch, List<String> command, Map<String, String> env,
                Integer timeoutSeconds, Long cpuMillis, Long memoryMb) {
            this(jobId, attempt, epoch, command, env, timeoutSeconds, cpuMillis, memoryMb, List.of());
        }

        public Lease(UUID jobId, int attempt, long epoch, List<String> command, Map<String, String> env,
                Integer timeoutSeconds) {
            this(jobId, attempt, epoch, command, env, timeoutSeconds, null, null, List.of());
        }
    }

    /**
     * One replica of a gang: its rank (0…worldSize-1) and every replica's {@code host:port}, by rank (replica 0's is
     * the rendezvous, {@code MASTER_ADDR}/{@code MASTER_PORT}).
     */
    public record Gang(int rank, int worldSize, List<String> peers) {
        public Gang {
            peers = peers == null ? List.of() : List.copyOf(peers);
        }
    }

    /** The reason of a {@link Kill} that ends a gang's replica because another replica failed: GANG_MEMBER_FAILED. */
    public static final String GANG_MEMBER_FAILED = "gang member failed";

    /**
     * The reason of a {@link Kill} that ends an attempt past its job's time limit: reported TIMEOUT. Agents kill at
     * their own deadline; the control plane says it too, a little later, should an agent not have.
     */
    public static final String TIMED_OUT = "timed out";

    /** The reason of a {@link Kill} that ends an attempt for a job of a higher priority: reported PREEMPTED. */
    public static final String PREEMPTED = "preempted";

    /** An attempt to stop, and why (canceled, preempted, not current, timed out). */
    public record Kill(UUID jobId, int attempt, String reason) {
    }

    public record AttemptRef(UUID jobId, int attempt) {
    }
}
