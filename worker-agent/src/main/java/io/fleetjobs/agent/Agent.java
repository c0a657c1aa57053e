package io.fleetjobs.agent;

import io.fleetjobs.agent.process.Attempt;
import io.fleetjobs.agent.process.AttemptKey;
import io.fleetjobs.agent.process.AttemptLogContext;
import io.fleetjobs.agent.process.AttemptRunner;
import io.fleetjobs.agent.process.CommandNotStartableException;
import io.fleetjobs.agent.process.Isolation;
import io.fleetjobs.agent.process.Outcome;
import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.process.Requested;
import io.fleetjobs.agent.process.StartFailedException;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.GangRendezvous;
import io.fleetjobs.model.GpuAssignment;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.AttemptRef;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import io.fleetjobs.model.agent.AgentProtocol.Kill;
import io.fleetjobs.model.agent.AgentProtocol.Lease;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.model.logs.LogLimits;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.web.client.HttpClientErrorException;

/**
 * The agent's loop: heartbeat (what runs, how attempts ended), then do what the reply says (start,
 * kill), and again. The scheduler holds a heartbeat while it has nothing to say, so a new lease
 * arrives within moments of its commit.
 *
 * <p>Self-fencing ({@link LeaseFence}, {@link Fence}): the lease is a deadline on a monotonic clock, renewed only
 * by a heartbeat answered and counted from when that heartbeat was sent; a timer of its own, independent of any
 * call, sends SIGTERM to every attempt at the deadline (LEASE_EXPIRED) and SIGKILL by the end of the kill grace
 * the scheduler said. The control plane declares the machine lost only after a longer TTL ({@code FencingBudget}),
 * so two live attempts of one job never overlap, even across a silent partition. Every heartbeat gives up before
 * the lease it would renew ends ({@link HeartbeatTiming}), and a lease is started only while the fence is live
 * and before the deadline the scheduler gave it.
 */
final class Agent implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(Agent.class);
    static final String CANCELED = "canceled";
    static final String TIMED_OUT = AgentProtocol.TIMED_OUT;
    static final String FENCED = "lease expired";
    private static final Duration HOUSEKEEPING_EVERY = Duration.ofMinutes(1);

    private final WorkerProperties properties;
    private final MachineResources resources;
    private final SchedulerClient scheduler;
    private final AttemptRunner runner;
    private final InstantSource clock;
    private final MonotonicClock monotonic;
    private final LeaseFence fence;
    private final Thread.Builder loopThread;
    private final Duration firstBeatDelay;
    private final Joining joining;
    private final LogShipper shipper;
    private final Map<AttemptKey, Tracked> running = new ConcurrentHashMap<>();
    private final Map<AttemptKey, AttemptReport> finals = new ConcurrentHashMap<>();
    private final Semaphore wake = new Semaphore(0);
    private volatile boolean active;
    private Thread loop;
    private JoinResponse identity;
    private HeartbeatTiming timing;
    /** The interval and lease the control plane last told ({@link #obey}); the agent's own interval until then. */
    private Duration interval;
    private Duration leaseTtl;
    private Instant lastHousekeeping;
    /** The attempts the last reply started, which the next heartbeat waits a little for ({@link #awaitEnds}). */
    private final List<AttemptKey> justStarted = new ArrayList<>();
    private Duration gatherAfterStart = GATHER_AFTER_START;

    /** @param credentials where the machine's credential is kept across restarts */
    Agent(WorkerProperties properties, MachineResources resources, SchedulerClient scheduler, AttemptRunner runner,
            InstantSource clock, CredentialFile credentials) {
        this(properties, resources, scheduler, runner, clock,
                Thread.ofPlatform().name("agent-loop").daemon(false), Duration.ZERO, credentials);
    }

    /**
     * @param loopThread     makes the thread the loop runs on (the fleet simulator: a virtual thread per machine)
     * @param firstBeatDelay how long after joining the first heartbeat goes out, so that many machines joined
     *                       together do not beat in the same millisecond ever after
     * @param credentials    where the machine's credential is kept across restarts; null: not kept (the simulator)
     */
    Agent(WorkerProperties properties, MachineResources resources, SchedulerClient scheduler, AttemptRunner runner,
            InstantSource clock, Thread.Builder loopThread, Duration firstBeatDelay, CredentialFile credentials) {
        this(properties, resources, scheduler, runner, clock, MonotonicClock.SYSTEM, loopThread, firstBeatDelay, credentials);
    }

    /** @param monotonic what the lease is counted on (tests step one) */
    Agent(WorkerProperties properties, MachineResources resources, SchedulerClient scheduler, AttemptRunner runner,
            InstantSource clock, MonotonicClock monotonic, Thread.Builder loopThread, Duration firstBeatDelay,
            CredentialFile credentials) {
        this.monotonic = monotonic;
        this.fence = new LeaseFence(monotonic, new LeaseFence.Attempts() {
            @Override
            public int terminateAll() {
                return stopAll(FENCED);
            }

            @Override
            public int killAll() {
                return killAllNow();
            }
        });
        this.properties = properties;
        this.resources = resources;
        this.scheduler = scheduler;
        this.runner = runner;
        this.clock = clock;
        this.loopThread = loopThread;
        this.firstBeatDelay = firstBeatDelay;
        this.joining = new Joining(properties, resources, scheduler, runner.isolation().wire(), clock, monotonic,
                credentials, runner instanceof ProcessRunner real
                        ? Integer.valueOf(AttemptsAtOnce.of(properties.maxLiveAttempts(), Runtime.getRuntime().maxMemory(), real.sandboxUids()))
                        : properties.maxLiveAttempts(),
                runner instanceof ProcessRunner real
                        && real.isolation() == Isolation.SANDBOX ? real.isolationGaps() : null);
        this.shipper = new LogShipper(runner, this::pushLogs, LogLimits.PUSH_EVERY);
    }

    private boolean pushLogs(AttemptKey key, long epoch, String stream, long offset, byte[] data, boolean eof) {
        JoinResponse me = identity;
        return scheduler.pushLogs(me.credential(), new AgentProtocol.LogPush(me.machineId(), me.incarnation(),
                key.jobId(), key.attempt(), epoch, stream, offset, data, eof)).followed();
    }

    /** An attempt this agent runs. */
    private static final class Tracked {
        final Lease lease;
        final Attempt process;
        final Instant deadline;
        volatile String killReason;

        Tracked(Lease lease, Attempt process, Instant deadline) {
            this.lease = lease;
            this.process = process;
            this.deadline = deadline;
        }
    }

    @Override
    public void start() {
        List<AttemptKey> leftovers = runner.killLeftovers();
        if (!leftovers.isEmpty()) {
            log.info("killed {} attempts a previous incarnation left running: {}", leftovers.size(), leftovers);
        }
        join();
        active = true;
        fence.start(resources.machineId());
        shipper.start();
        loop = loopThread.start(() -> {
            if (firstBeatDelay.isPositive()) {
                waitFor(firstBeatDelay);
            }
            run();
        });
    }

    /** Joins ({@link Joining}), and takes the lease the join answered. */
    private void join() {
        Joining.Joined joined = joining.join();
        identity = joined.identity();
        leaseFrom(joined.sentAt());
    }

    /**
     * The lease the join answered, with the scheduler's TTL and kill grace (the agent's own grace where an older
     * scheduler says none), and heartbeats timed to give up before it ends.
     */
    private void leaseFrom(long sentAt) {
        Duration ttl = Duration.ofMillis(identity.leaseTtlMs());
        Duration grace = identity.killGraceMs() == null ? properties.killGrace() : Duration.ofMillis(identity.killGraceMs());
        interval = null;
        obey(identity.heartbeatIntervalMs() > 0 ? Duration.ofMillis(identity.heartbeatIntervalMs()) : null, ttl);
        fence.joined(sentAt, ttl, grace);
        log.info("lease TTL {}, kill grace {}: heartbeats every {}, held at most {}, given up after {}", ttl, grace,
                interval, timing.hold(), timing.readTimeout());
    }

    /**
     * Takes the heartbeat interval and lease the control plane says: it slows a large fleet's heartbeats ({@code
     * HeartbeatCadence}), and the agent never beats faster than told (nor faster than its own setting; an older
     * scheduler that says no interval leaves the agent's own). Heartbeats are timed again when either changed.
     */
    private void obey(Duration toldInterval, Duration toldLease) {
        Duration own = properties.heartbeatInterval();
        Duration next = toldInterval != null && toldInterval.compareTo(own) > 0 ? toldInterval : own;
        if (next.equals(interval) && toldLease.equals(leaseTtl)) {
            return;
        }
        if (interval != null) {
            log.info("the control plane says: heartbeats every {} with a lease of {}", next, toldLease);
        }
        interval = next;
        leaseTtl = toldLease;
        timing = HeartbeatTiming.of(interval, leaseTtl, SchedulerClient.CONNECT_TIMEOUT);
        scheduler.heartbeatReadTimeout(timing.readTimeout());
    }

    private void run() {
        while (active) {
            Instant startedAt = clock.instant();
            long sentAt = monotonic.nanos();
            boolean progress = false;
            try {
                HeartbeatResponse reply = scheduler.heartbeat(identity.credential(), new Heartbeat(identity.machineId(),
                        identity.incarnation(), reports(), timing.hold().toMillis(), shipper.shipping()));
                fence.renewed(sentAt, Duration.ofMillis(reply.leaseTtlMs()));
                obey(reply.heartbeatIntervalMs() == null ? null : Duration.ofMillis(reply.heartbeatIntervalMs()),
                        Duration.ofMillis(reply.leaseTtlMs()));
                progress = apply(reply, sentAt);
                shipper.follow(reply.follow());
                awaitEnds(justStarted);
            } catch (HttpClientErrorException.Unauthorized | HttpClientErrorException.Conflict e) {
                // the credential is unknown or another incarnation took this machine over: its attempts were ended
                log.warn("the scheduler no longer knows this agent ({}): {}; stopping attempts and joining again",
                        e.getStatusCode(), e.getResponseBodyAsString());
                stopAll(FENCED);
                rejoin();
            } catch (RuntimeException e) {
                if (!active) {
                    break; // stopping: the heartbeat in flight was interrupted
                }
                log.warn("heartbeat failed: {}", e.getMessage()); // the lease's timer fences, not this
            }
            enforceTimeouts();
            housekeeping();
            if (!progress) {
                Duration left = interval.minus(Duration.between(startedAt, clock.instant()));
                waitFor(left.isNegative() ? Duration.ZERO : left);
            }
        }
    }

    /**
     * After starting attempts, the next heartbeat waits until they have all ended, or this long: an attempt that ends
     * at once is then reported once, ended (one write of its job), not running and then ended (two), and a reply that
     * started many sends their reports in one heartbeat. Attempts still running are reported running when it is up.
     */
    static final Duration GATHER_AFTER_START = Duration.ofMillis(20);

    /** Tests widen the wait after starting attempts, to see it end as soon as they have. */
    void gatherAfterStart(Duration window) {
        this.gatherAfterStart = window;
    }

    /** Waits until the attempts just started have all ended, or {@link #GATHER_AFTER_START}; forgets them. */
    private void awaitEnds(List<AttemptKey> started) {
        if (started.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + gatherAfterStart.toNanos();
        try {
            while (active && started.stream().anyMatch(running::containsKey)) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !wake.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                    break;
                }
            }
            wake.drainPermits(); // what woke it goes with the heartbeat that follows at once
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            active = false;
        }
        started.clear();
    }

    /**
     * Does what the reply to the heartbeat sent at {@code sentAt} says. A lease is started only while the fence is
     * live and before its own deadline; one past either is not started and nothing is reported for it: the
     * reconciler ends it LEASE_EXPIRED when its lease runs out, the one owner of that decision (a refusal reported
     * as START_FAILED would count against a machine that did nothing wrong, and race with that sweep).
     *
     * @return whether it said anything new
     */
    private boolean apply(HeartbeatResponse reply, long sentAt) {
        boolean progress = false;
        for (AttemptRef acked : reply.ack()) {
            progress |= finals.remove(new AttemptKey(acked.jobId(), acked.attempt())) != null;
        }
        for (Kill kill : reply.kill()) {
            Tracked t = running.get(new AttemptKey(kill.jobId(), kill.attempt()));
            if (t != null && t.killReason == null) {
                t.killReason = kill.reason();
                t.process.terminate();
                progress = true;
            }
        }
        for (Lease lease : reply.start()) {
            AttemptKey key = new AttemptKey(lease.jobId(), lease.attempt());
            if (!running.containsKey(key) && !finals.containsKey(key)) {
                if (!fence.live() || !Fence.startable(lease.startWithinMs(), sentAt, monotonic.nanos())) {
                    log.warn("not starting attempt {}: {}", key, fence.live() ? "its lease to start ran out ("
                            + lease.startWithinMs() + " ms)" : "this agent's lease ran out");
                    continue;
                }
                start(key, lease);
                justStarted.add(key);
                progress = true;
            }
        }
        return progress;
    }

    private void start(AttemptKey key, Lease lease) {
        try (var ignored = AttemptLogContext.of(key)) {
            startInContext(key, lease);
        }
    }

    private void startInContext(AttemptKey key, Lease lease) {
        try {
            Attempt process = runner.start(key, lease.command(), inGang(withDevices(lease.env(), lease.gpus()), lease.gang()),
                    new Requested(lease.cpuMillis(), lease.memoryMb(), resources.deviceMinors(lease.gpus()),
                            lease.ownNetwork()));
            Instant deadline = lease.timeoutSeconds() == null ? null
                    : process.startedAt().plusSeconds(lease.timeoutSeconds());
            Tracked tracked = new Tracked(lease, process, deadline);
            shipper.attemptStarted(key, lease.epoch());
            running.put(key, tracked); // the heartbeat that follows this reply's work says it runs
            process.exit().whenComplete((outcome, error) -> ended(key, tracked, outcome));
        } catch (StartFailedException e) {
            log.warn("attempt {} could not start: {}", key, e.getMessage());
            AttemptReport failed = startFailure(key, lease.epoch(), identity.machineId(), e, clock.instant());
            finals.put(key, HeartbeatBody.fitted(failed));
        }
    }

    /**
     * The report of an attempt that could not start: a command the job names that cannot be run is the job's
     * failure (COMMAND_NOT_STARTABLE, exit code 127 or 126, as a shell says it); anything else is the platform's
     * (START_FAILED, which auto-drain counts).
     */
    static AttemptReport startFailure(AttemptKey key, long epoch, String machineId, StartFailedException e, Instant now) {
        return switch (e) {
            case CommandNotStartableException c -> new AttemptReport(key.jobId(), key.attempt(), epoch, machineId,
                    AttemptState.FAILED, c.exitCode(), FailureReason.COMMAND_NOT_STARTABLE, null, now, "", c.getMessage());
            default -> new AttemptReport(key.jobId(), key.attempt(), epoch, machineId, AttemptState.FAILED, null,
                    FailureReason.START_FAILED, null, now, "", e.getMessage());
        };
    }

    /**
     * The job's environment with the GPUs it holds named: CUDA numbers devices in PCI bus order, as nvidia-smi
     * and the lease do, only when told to. On a machine with GPUs a job that holds none is shown none.
     */
    Map<String, String> withDevices(Map<String, String> env, List<Integer> gpus) {
        if (resources.gpuCount() == 0 && gpus.isEmpty()) {
            return env;
        }
        Map<String, String> withDevices = new LinkedHashMap<>(env == null ? Map.of() : env);
        withDevices.putAll(GpuAssignment.environment(gpus));
        return withDevices;
    }

    /** The job's environment with its place in its gang ({@link GangRendezvous}); unchanged for a job of one replica. */
    static Map<String, String> inGang(Map<String, String> env, AgentProtocol.Gang gang) {
        if (gang == null) {
            return env;
        }
        Map<String, String> withGang = new LinkedHashMap<>(env == null ? Map.of() : env);
        withGang.putAll(GangRendezvous.environment(gang.rank(), gang.worldSize(), gang.peers()));
        return withGang;
    }

    /** An attempt's process is gone: its final report waits for the scheduler's acknowledgement. */
    private void ended(AttemptKey key, Tracked tracked, Outcome outcome) {
        String why = tracked.killReason;
        AttemptReport report;
        if (outcome == null) {
            report = report(tracked, AttemptState.FAILED, null, FailureReason.START_FAILED, null);
        } else if (CANCELED.equals(why)) {
            report = report(tracked, AttemptState.CANCELED, outcome.exitCode(), null, outcome);
        } else if (TIMED_OUT.equals(why)) {
            report = report(tracked, AttemptState.FAILED, outcome.exitCode(), FailureReason.TIMEOUT, outcome);
        } else if (FENCED.equals(why)) {
            report = report(tracked, AttemptState.FAILED, outcome.exitCode(), FailureReason.LEASE_EXPIRED, outcome);
        } else if (AgentProtocol.GANG_MEMBER_FAILED.equals(why)) {
            report = withNote(report(tracked, AttemptState.FAILED, outcome.exitCode(), FailureReason.GANG_MEMBER_FAILED,
                    outcome), "ended with its gang: another replica failed");
        } else if (AgentProtocol.PREEMPTED.equals(why)) {
            report = withNote(report(tracked, AttemptState.FAILED, outcome.exitCode(), FailureReason.PREEMPTED, outcome),
                    "preempted: ended to make room for a job of a higher priority");
        } else if (outcome.breach() != null) {
            // the machine's limit ended it (OOM kill, disk cap): the job's failure, said so a person can act on it
            report = report(tracked, AttemptState.FAILED, outcome.exitCode(), outcome.breach().reason(), outcome);
            report = withNote(report, outcome.breach().reason() + ": " + outcome.breach().detail());
        } else if (outcome.exitCode() == 0 && why == null) {
            report = report(tracked, AttemptState.SUCCEEDED, 0, null, outcome);
        } else {
            report = report(tracked, AttemptState.FAILED, outcome.exitCode(), FailureReason.EXIT_CODE, outcome);
        }
        finals.put(key, HeartbeatBody.fitted(report));
        running.remove(key);
        shipper.attemptEnded(key);
        wake.release(); // the next heartbeat carries it at once: reports go only over the agent API

    }

    /** The agent's own line (a whole one) at the end of the attempt's stderr tail, where a person reading the logs sees it. */
    static AttemptReport withNote(AttemptReport r, String note) {
        String tail = r.stderrTail() == null || r.stderrTail().isEmpty() ? "" : r.stderrTail().endsWith("\n")
                ? r.stderrTail() : r.stderrTail() + "\n";
        return new AttemptReport(r.jobId(), r.attempt(), r.epoch(), r.machineId(), r.state(), r.exitCode(),
                r.failureReason(), r.startedAt(), r.finishedAt(), r.stdoutTail(),
                tail + "[fleetjobs-agent] " + note + "\n");
    }

    private AttemptReport report(Tracked t, AttemptState state, Integer exitCode, FailureReason reason, Outcome outcome) {
        return new AttemptReport(t.lease.jobId(), t.lease.attempt(), t.lease.epoch(), identity.machineId(), state, exitCode,
                reason, t.process.startedAt(), outcome == null ? (state.isLive() ? null : clock.instant()) : outcome.finishedAt(),
                outcome == null ? t.process.stdoutTail() : outcome.stdoutTail(),
                outcome == null ? t.process.stderrTail() : outcome.stderrTail());
    }

    /**
     * What the next heartbeat says: every attempt running, and the final reports not yet acknowledged, as many as
     * the agent API takes in one ({@link HeartbeatBody}; the rest follow as soon as these are acknowledged).
     */
    private List<AttemptReport> reports() {
        List<AttemptReport> all = new ArrayList<>(HeartbeatBody.finalsToSend(finals.values()));
        for (Tracked t : running.values()) {
            all.add(new AttemptReport(t.lease.jobId(), t.lease.attempt(), t.lease.epoch(), identity.machineId(),
                    AttemptState.RUNNING, null, null, t.process.startedAt(), null, null, null));
        }
        return all;
    }

    /** At most once a minute: old attempts' directories go. */
    private void housekeeping() {
        Instant now = clock.instant();
        if (lastHousekeeping == null || Duration.between(lastHousekeeping, now).compareTo(HOUSEKEEPING_EVERY) >= 0) {
            lastHousekeeping = now;
            try {
                runner.housekeeping();
            } catch (RuntimeException e) {
                log.warn("housekeeping failed: {}", e.toString());
            }
        }
    }

    private void enforceTimeouts() {
        Instant now = clock.instant();
        for (Tracked t : running.values()) {
            if (t.deadline != null && now.isAfter(t.deadline) && t.killReason == null) {
                t.killReason = TIMED_OUT;
                t.process.terminate();
            }
        }
    }

    /** SIGTERM (then SIGKILL after the grace) to every attempt not yet told to stop. @return how many were told */
    private int stopAll(String reason) {
        int told = 0;
        for (Tracked t : running.values()) {
            if (t.killReason == null) {
                t.killReason = reason;
                t.process.terminate();
                told++;
            }
        }
        return told;
    }

    /** SIGKILL to every attempt still running, now (the fence's grace is over). @return how many */
    private int killAllNow() {
        int killed = 0;
        for (Tracked t : running.values()) {
            if (t.killReason == null) {
                t.killReason = FENCED;
            }
            t.process.kill();
            killed++;
        }
        return killed;
    }

    private void rejoin() {
        try {
            join();
        } catch (IllegalStateException e) {
            log.warn("joining again failed: {}", e.getMessage());
        }
    }

    private void waitFor(Duration timeout) {
        try {
            if (wake.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                wake.drainPermits();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            active = false;
        }
    }

    @Override
    public void stop() {
        active = false;
        fence.close();
        shipper.stop();
        if (loop != null) {
            loop.interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return active;
    }

    /** For tests: the attempts running now. */
    Map<AttemptKey, Attempt> running() {
        Map<AttemptKey, Attempt> view = new HashMap<>();
        running.forEach((k, t) -> view.put(k, t.process));
        return view;
    }
}
