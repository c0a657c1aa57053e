package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.agent.AgentProtocol.AttemptRef;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import io.fleetjobs.model.agent.AgentProtocol.Kill;
import io.fleetjobs.model.agent.AgentProtocol.Lease;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.MachineStore.LiveAttempt;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The scheduler's side of the agent protocol: join (machine credential, new incarnation, the
 * previous incarnation's attempts ended) and heartbeat (reports applied, desired state compared
 * with actual, the reply says what to start and kill, long-polling while there is nothing to do).
 */
public final class AgentService {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final JobStore jobs;
    private final MachineStore machines;
    private final AttemptReports reports;
    private final LeaseBroker broker;
    private final HeartbeatWriter heartbeats;
    private final AgentProperties properties;
    private final Runnable fleetChanged;

    public AgentService(JobStore jobs, MachineStore machines, AttemptReports reports, LeaseBroker broker,
            HeartbeatWriter heartbeats, AgentProperties properties) {
        this(jobs, machines, reports, broker, heartbeats, properties, () -> { });
    }

    /** @param fleetChanged told after a machine joined (the scheduler looks for room again, for every queued job) */
    public AgentService(JobStore jobs, MachineStore machines, AttemptReports reports, LeaseBroker broker,
            HeartbeatWriter heartbeats, AgentProperties properties, Runnable fleetChanged) {
        this.fleetChanged = fleetChanged;
        this.jobs = jobs;
        this.machines = machines;
        this.reports = reports;
        this.broker = broker;
        this.heartbeats = heartbeats;
        this.properties = properties;
    }

    /** Checks the cluster join token, in constant time. */
    public boolean joinTokenMatches(String presented) {
        String expected = properties.joinToken();
        return expected != null && !expected.isBlank() && presented != null
                && MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
    }

    public JoinResponse join(JoinRequest request) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String credential = "fjm_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        long incarnation = jobs.inTransaction(() -> {
            // the previous incarnation's processes were killed by the new agent: end their attempts
            reports.endLiveAttempts(request.machineId(), FailureReason.AGENT_RESTARTED);
            return machines.join(request.machineId(), request.region(), request.labels(), request.gpuType(),
                    request.cpuMillis(), request.memoryMb(), request.gpuCount(), hash(credential));
        });
        fleetChanged.run();
        return new JoinResponse(request.machineId(), credential, incarnation, properties.leaseTtl().toMillis(),
                properties.heartbeatInterval().toMillis());
    }

    /** The machine a credential is bound to. */
    public Optional<MachineStore.Identity> identify(String credential) {
        return credential == null ? Optional.empty() : machines.byCredential(hash(credential));
    }

    public HeartbeatResponse heartbeat(String machineId, Heartbeat heartbeat) {
        Instant now = jobs.clock().instant();
        heartbeats.record(machineId, now);
        List<AttemptRef> ack = new ArrayList<>();
        Map<AttemptRef, AttemptReport> running = new HashMap<>();
        List<AttemptReport> ended = new ArrayList<>();
        Set<AttemptRef> endedRefs = new HashSet<>();
        for (AttemptReport report : heartbeat.attempts()) {
            AttemptReport own = withMachine(report, machineId);
            if (own.endsAttempt()) {
                ended.add(own);
                endedRefs.add(new AttemptRef(own.jobId(), own.attempt()));
            } else {
                running.put(new AttemptRef(own.jobId(), own.attempt()), own);
            }
        }
        // one transaction for all of them; one that Kafka's path is applying right now is not waited for
        // and not acknowledged: the agent sends it again with its next heartbeat
        List<AttemptReports.Outcome> outcomes = reports.applyAvailable(ended);
        for (int i = 0; i < ended.size(); i++) {
            if (outcomes.get(i) != AttemptReports.Outcome.BUSY) {
                ack.add(new AttemptRef(ended.get(i).jobId(), ended.get(i).attempt()));
            }
        }
        long waitMs = Math.min(Math.max(heartbeat.waitMs(), 0), properties.maxWait().toMillis());
        long deadline = System.nanoTime() + waitMs * 1_000_000L;
        CompletableFuture<Void> ticket = broker.register(machineId);
        Desired desired = desired(machineId, running, endedRefs);
        // Held while there is nothing to say, until the wait runs out. A wake-up that finds nothing new
        // (the same placement signalled again by its event from Kafka, a cancel already settled) holds
        // on: answered empty, the agent would sleep out the rest of its interval and miss the next
        // placement's wake-up (W2's SCHEDULED -> started stage took up to a whole interval).
        while (desired.isEmpty() && ack.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !broker.await(ticket, Duration.ofNanos(left))) {
                break;
            }
            ticket = broker.register(machineId); // before reading, so a signal during the read is not lost
            desired = desired(machineId, running, endedRefs);
        }
        return new HeartbeatResponse(properties.leaseTtl().toMillis(), desired.start, desired.kill, ack);
    }

    private record Desired(List<Lease> start, List<Kill> kill) {
        boolean isEmpty() {
            return start.isEmpty() && kill.isEmpty();
        }
    }

    /**
     * Compares what the database says must run on the machine with what its agent says it runs.
     * An attempt the agent reports ended is never leased again, though the database may not show the
     * end yet (Kafka's path holding the row: the report is then not acknowledged and comes again): the
     * agent would ignore the lease, and an answer with nothing new in it sends it to sleep out its
     * heartbeat interval, deaf to the next placement on its machine.
     */
    private Desired desired(String machineId, Map<AttemptRef, AttemptReport> running, Set<AttemptRef> ended) {
        List<Lease> start = new ArrayList<>();
        List<Kill> kill = new ArrayList<>();
        List<AttemptReport> settle = new ArrayList<>();
        Map<AttemptRef, LiveAttempt> live = new HashMap<>();
        for (LiveAttempt a : machines.liveAttempts(machineId)) {
            live.put(new AttemptRef(a.jobId(), a.attempt()), a);
        }
        running.forEach((ref, report) -> {
            LiveAttempt a = live.get(ref);
            if (a == null || a.epoch() != report.epoch()) {
                kill.add(new Kill(ref.jobId(), ref.attempt(), "not current: this attempt must not run"));
            }
        });
        for (var entry : live.entrySet()) {
            AttemptRef ref = entry.getKey();
            LiveAttempt a = entry.getValue();
            AttemptReport reported = running.get(ref);
            if (reported != null && reported.epoch() == a.epoch()) {
                if (a.cancelRequested()) {
                    kill.add(new Kill(ref.jobId(), ref.attempt(), "canceled"));
                } else if (a.state() == AttemptState.SCHEDULED) {
                    settle.add(reported); // its start report is late or lost: the heartbeat says it runs
                }
            } else if (ended.contains(ref)) {
                continue; // its end report is applied, now or with the agent's next heartbeat
            } else if (a.cancelRequested()) {
                // canceled before it started: end it here, nothing to kill
                settle.add(new AttemptReport(a.jobId(), a.attempt(), a.epoch(), machineId, AttemptState.CANCELED,
                        null, null, null, jobs.clock().instant(), null, null));
            } else if (a.state() == AttemptState.SCHEDULED) {
                var execution = a.execution();
                start.add(new Lease(a.jobId(), a.attempt(), a.epoch(), execution.command(), execution.env(),
                        execution.timeoutSeconds()));
            }
            // RUNNING in the database but not reported: the agent's next report (or the reconciler) settles it
        }
        // in one transaction; one that Kafka's path is applying right now is left to it (the next heartbeat sees)
        reports.applyAvailable(settle);
        return new Desired(start, kill);
    }

    private static AttemptReport withMachine(AttemptReport r, String machineId) {
        return new AttemptReport(r.jobId(), r.attempt(), r.epoch(), machineId, r.state(), r.exitCode(), r.failureReason(),
                r.startedAt(), r.finishedAt(), r.stdoutTail(), r.stderrTail());
    }

    static byte[] hash(String credential) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(credential.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** For tests and tools: a report's key. */
    static AttemptRef ref(UUID jobId, int attempt) {
        return new AttemptRef(jobId, attempt);
    }
}
