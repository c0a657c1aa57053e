package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.HeartbeatCadence;
import io.fleetjobs.model.agent.AgentProtocol.AttemptRef;
import io.fleetjobs.model.agent.AgentProtocol.Heartbeat;
import io.fleetjobs.model.agent.AgentProtocol.HeartbeatResponse;
import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import io.fleetjobs.model.agent.AgentProtocol.LogFollow;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.model.logs.FollowSet;
import io.fleetjobs.store.AssignedAttempt;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The scheduler's side of the agent protocol: join (machine credential, new incarnation, the
 * previous incarnation's attempts ended) and heartbeat (reports applied, desired state compared
 * with actual, the reply says what to start and kill, long-polling while there is nothing to do).
 */
public final class AgentService {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Machine identities by credential hash ({@link #identify}), at most {@link #MAX_IDENTITIES}. */
    private final ConcurrentHashMap<String, MachineStore.Identity> identities =
            new ConcurrentHashMap<>();
    private static final int MAX_IDENTITIES = 100_000;
    private final JobStore jobs;
    private final MachineStore machines;
    private final AttemptReports reports;
    private final LeaseBroker broker;
    private final HeartbeatWriter heartbeats;
    private final AgentProperties properties;
    private final Runnable fleetChanged;
    private final Supplier<HeartbeatCadence> cadence;
    /**
     * Heartbeats doing database work at once, at most the agent pool's size: beyond it a heartbeat waits {@link
     * #BUSY_AFTER} for its turn and is then answered 503 (heard all the same). Unbounded, a loaded database made
     * heartbeats queue for connections while their agents gave up and sent more, until the heap ran out.
     */
    private volatile Semaphore working = new Semaphore(Integer.MAX_VALUE);
    static final Duration BUSY_AFTER = Duration.ofSeconds(1);
    /** Told when a heartbeat's ends gave room back (the scheduler looks for room at once); nothing until set. */
    private volatile Runnable roomFreed = () -> { };
    /** How long an answer that acknowledges ends waits for a placement in the room they gave back. */
    private volatile Duration holdAfterEnd = Duration.ZERO;
    /** What was last read of each machine's live attempts, answering heartbeats that have nothing to be told. */
    private volatile LiveViews views = new LiveViews(LiveViews.DEFAULT_MAX_AGE, System::nanoTime);
    /** The streams of a machine's attempts followed now ({@code LogStreams.followsOn}); null when not known. */
    private volatile Function<String, List<LogFollow>> follows = machineId -> null;

    public AgentService(JobStore jobs, MachineStore machines, AttemptReports reports, LeaseBroker broker,
            HeartbeatWriter heartbeats, AgentProperties properties) {
        this(jobs, machines, reports, broker, heartbeats, properties, () -> { });
    }

    /** @param fleetChanged told after a machine joined (the scheduler looks for room again, for every queued job) */
    public AgentService(JobStore jobs, MachineStore machines, AttemptReports reports, LeaseBroker broker,
            HeartbeatWriter heartbeats, AgentProperties properties, Runnable fleetChanged) {
        this(jobs, machines, reports, broker, heartbeats, properties, fleetChanged, properties.cadenceSettings()::base);
    }

    /** @param cadence the heartbeat interval and lease to tell agents now ({@link CadenceKeeper}) */
    public AgentService(JobStore jobs, MachineStore machines, AttemptReports reports, LeaseBroker broker,
            HeartbeatWriter heartbeats, AgentProperties properties, Runnable fleetChanged,
            Supplier<HeartbeatCadence> cadence) {
        this.cadence = cadence;
        this.fleetChanged = fleetChanged;
        this.jobs = jobs;
        this.machines = machines;
        this.reports = reports;
        this.broker = broker;
        this.heartbeats = heartbeats;
        this.properties = properties;
        broker.onSignal(machineId -> views.forget(machineId), (machineId, attempt) -> views.holds(machineId, attempt));
    }

    /**
     * How long a view of a machine's live attempts may answer its heartbeats ({@link LiveViews}; zero: never, every
     * heartbeat reads), counted on {@code nanos} (tests step one).
     */
    public void keepViews(Duration maxAge, LongSupplier nanos) {
        views = new LiveViews(maxAge, nanos);
    }

    /**
     * After a heartbeat's ends gave room back: tells {@code roomFreed} (the scheduler's loop), and holds the answer
     * that acknowledges them up to {@code hold} for a placement in that room (zero: answered at once).
     */
    public void afterEnds(Runnable roomFreed, Duration hold) {
        this.roomFreed = roomFreed;
        this.holdAfterEnd = hold;
    }

    /** Heartbeats answered from a view of their machine's attempts, and reads of a machine's attempts, so far. */
    public long[] viewCounts() {
        LiveViews v = views;
        return new long[] {v.answeredCount(), v.readCount()};
    }

    /** At most {@code n} heartbeats do database work at once (the agent pool's size); unbounded until set. */
    public void workAtOnce(int n) {
        working = new Semaphore(n);
    }

    /** Too many heartbeats are at the database already; this one was heard, not answered (503, Retry-After). */
    public static final class Busy extends RuntimeException {
        Busy() {
            super("the scheduler is answering as many heartbeats as its database connections allow; this one was heard"
                    + " (the machine is alive) but is not answered; send the next one");
        }
    }

    /** Runs a heartbeat's database work once there is room for it ({@link #working}). */
    public <T> T working(Supplier<T> work) {
        Semaphore gate = working;
        long began = System.nanoTime();
        boolean admitted;
        try {
            admitted = gate.tryAcquire(BUSY_AFTER.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Busy();
        }
        if (!admitted) {
            heartbeats.troubled();
            throw new Busy();
        }
        try {
            return work.get();
        } finally {
            gate.release();
            if (System.nanoTime() - began > BUSY_AFTER.toNanos()) {
                heartbeats.troubled(); // its agent may have given up on it meanwhile
            }
        }
    }

    /**
     * A heartbeat turned away before its body was read ({@link HeartbeatAdmission}): recorded alive when its
     * credential is one known in memory (an unknown one would need the database, which a full scheduler does not
     * spend on it), and counted as a sign of trouble hearing the fleet.
     *
     * @return whether the machine was recorded
     */
    public boolean heardWhileFull(String credential) {
        heartbeats.troubled();
        if (credential == null) {
            return false;
        }
        MachineStore.Identity known = identities.get(identityKey(credential));
        if (known == null) {
            return false;
        }
        heartbeats.record(known.machineId(), jobs.clock().instant());
        return true;
    }

    /** Where heartbeats' answers take the streams followed on the machine from (live logs); none until set. */
    public void logFollows(Function<String, List<LogFollow>> follows) {
        this.follows = follows;
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
            var existing = machines.forJoin(request.machineId(),
                    request.credential() == null ? null : hash(request.credential())).orElse(null);
            if (JoinRule.decide(request.machineId(), existing == null ? null : new JoinRule.Existing(existing.status(),
                            existing.lastHeartbeatAt(), existing.hasCredential(), existing.holdsAttempts()),
                    existing != null && existing.credentialMatches(), jobs.clock().instant(),
                    properties.lostAfter().plus(cadence.get().extraOver(properties.leaseTtl())))
                    instanceof JoinRule.Decision.Refuse refused) {
                throw new JoinRefused(refused.reason());
            }
            // the previous incarnation's processes were killed by the new agent: end their attempts
            reports.endLiveAttempts(request.machineId(), FailureReason.AGENT_RESTARTED);
            long joined = machines.join(request.machineId(), request.region(), request.labels(), request.gpuType(),
                    request.cpuMillis(), request.memoryMb(), request.gpuCount(), hash(credential));
            machines.offerGpus(request.machineId(), request.gpus());
            machines.recordIsolation(request.machineId(), request.isolation(), request.isolationGaps() == null ? null
                    : List.copyOf(new LinkedHashSet<>(request.isolationGaps())));
            machines.recordAddress(request.machineId(), request.address());
            machines.recordMaxLiveAttempts(request.machineId(),
                    request.maxLiveAttempts() == null ? properties.maxLiveAttempts() : request.maxLiveAttempts());
            return joined;
        });
        identities.values().removeIf(i -> i.machineId().equals(request.machineId())); // its old credential is void
        views.forget(request.machineId());
        fleetChanged.run();
        broker.signal(request.machineId()); // a heartbeat of the superseded incarnation, held, answers 409 now
        HeartbeatCadence told = cadence.get();
        return new JoinResponse(request.machineId(), credential, incarnation, told.leaseTtl().toMillis(),
                told.interval().toMillis(), properties.killGrace().toMillis());
    }

    /** A join that may not take the machine id it names (see {@link JoinRule}); nothing was changed. */
    public static final class JoinRefused extends RuntimeException {
        JoinRefused(String reason) {
            super(reason);
        }
    }

    /**
     * A heartbeat whose incarnation a newer join superseded (found when its machine's attempts are read, before and
     * after a hold): it is answered nothing but 409, so that the old agent neither starts what the new one was given
     * nor takes the answer for a renewed lease.
     */
    public static final class Superseded extends RuntimeException {
        Superseded(String machineId, long incarnation) {
            super("incarnation " + incarnation + " of machine " + machineId + " was superseded by a newer join of the"
                    + " machine; join again");
        }
    }

    /**
     * The machine a credential is bound to. Kept in memory once read (the credential's hash, never the credential):
     * a credential is bound to one machine and incarnation for life, and a newer join makes it worthless: a join here
     * forgets it at once, and a heartbeat with it finds out in the read of the machine's attempts, which carries the
     * machine's incarnation ({@link Superseded}), and forgets it.
     */
    public Optional<MachineStore.Identity> identify(String credential) {
        if (credential == null) {
            return Optional.empty();
        }
        String key = identityKey(credential);
        MachineStore.Identity known = identities.get(key);
        if (known != null) {
            return Optional.of(known);
        }
        // only a credential not yet known takes a turn at the database: a known machine's heartbeat is recorded
        // however busy the database is (a heartbeat turned away before it was recorded would make it look silent)
        Optional<MachineStore.Identity> read;
        try {
            read = working(() -> machines.byCredential(hash(credential)));
        } catch (RuntimeException e) {
            heartbeats.troubled(); // its machine is not known, so not recorded: an agent alive and unheard
            throw e;
        }
        if (read.isPresent() && identities.size() < MAX_IDENTITIES) {
            identities.put(key, read.get());
        }
        return read;
    }

    /**
     * Applies the heartbeat's end reports and settles what the database holds for the agent, in one write, then
     * answers with what to start and kill; held while there is nothing to say, until the wait runs out. A
     * wake-up that finds nothing new (the same placement signalled again by its event from Kafka, a cancel
     * already settled) holds on: answered empty, the agent would sleep out the rest of its interval and miss
     * the next placement's wake-up. What a wake-up finds to settle is left to the next heartbeat, whose answer
     * it does not change. A held heartbeat checks that its incarnation is still the machine's before it answers
     * anything: a join meanwhile supersedes it ({@link Superseded}). A heartbeat whose ends gave room back is held
     * too, briefly ({@link #afterEnds}), so that the answer acknowledging them also starts what was placed there.
     */
    public HeartbeatResponse heartbeat(String machineId, Heartbeat heartbeat) {
        Instant now = jobs.clock().instant();
        // heard even when it cannot be answered: the machine is alive, and a writer that lags behind its flushes
        // writes it when it catches up; only the answer (a renewed lease) waits for the writer to be healthy
        heartbeats.record(machineId, now);
        requireRecording();
        AgentDiff.Reported reported = AgentDiff.Reported.of(machineId, heartbeat.attempts());
        long waitMs = Math.min(Math.max(heartbeat.waitMs(), 0), properties.maxWait().toMillis());
        long deadline = System.nanoTime() + waitMs * 1_000_000L;
        CompletableFuture<Void> ticket = broker.register(machineId);
        /** @param freed whether an end was applied (its room given back) */
        record First(AgentDiff diff, List<AttemptRef> ack, List<LogFollow> follow, boolean freed) {
        }
        First first = working(() -> {
            AgentDiff live = diff(machineId, heartbeat.incarnation(), reported, now);
            // one transaction for all of them; a report whose attempt another transaction holds right now (a
            // reconciler's sweep, an earlier heartbeat of this machine) is not waited for: an end is then not
            // acknowledged (the agent sends it again with its next heartbeat), a settle is left to the next heartbeat
            List<AttemptReport> ended = reported.ended();
            List<AttemptReport> writes = new ArrayList<>(ended);
            writes.addAll(live.settle());
            List<AttemptReports.Outcome> outcomes = reports.applyAvailable(writes);
            List<AttemptRef> acked = new ArrayList<>();
            boolean allApplied = live.settle().isEmpty();
            boolean freed = false;
            for (int i = 0; i < ended.size(); i++) {
                if (outcomes.get(i) != AttemptReports.Outcome.BUSY) {
                    acked.add(new AttemptRef(ended.get(i).jobId(), ended.get(i).attempt()));
                }
                allApplied &= outcomes.get(i) == AttemptReports.Outcome.APPLIED;
                freed |= outcomes.get(i) == AttemptReports.Outcome.APPLIED;
            }
            if (freed) {
                roomFreed.run(); // the scheduler looks for room now, not when the end's event comes back from Kafka
            }
            if (!writes.isEmpty()) {
                if (allApplied) {
                    views.ended(machineId, reported.endedRefs()); // what the database now says, without reading it
                } else {
                    views.forget(machineId);
                }
            }
            return new First(live, acked, followsOn(machineId), freed);
        });
        AgentDiff diff = first.diff();
        List<AttemptRef> ack = first.ack();
        List<LogFollow> follow = first.follow();
        // an answer that acknowledges ends which gave room back waits a moment for what is placed in that room, so
        // that one answer carries both (one heartbeat a round instead of two); other acknowledgements go at once
        boolean mayHold = ack.isEmpty() || first.freed() && !holdAfterEnd.isZero();
        long until = ack.isEmpty() ? deadline : Math.min(deadline, System.nanoTime() + holdAfterEnd.toNanos());
        boolean held = false;
        boolean checked = true; // the incarnation was read with the last diff
        while (mayHold && diff.tellsNothing() && !FollowSet.differs(heartbeat.following(), follow)) {
            long left = until - System.nanoTime();
            held = true;
            if (left <= 0 || !broker.await(ticket, Duration.ofNanos(left))) {
                checked = false;
                break;
            }
            ticket = broker.register(machineId); // before reading, so a signal during the read is not lost
            First again = working(() -> new First(diff(machineId, heartbeat.incarnation(), reported,
                    jobs.clock().instant()), null, followsOn(machineId), false));
            diff = again.diff();
            follow = again.follow();
        }
        if (!checked) {
            working(() -> {
                requireIncarnation(machineId, heartbeat.incarnation());
                return null;
            });
        }
        if (held) {
            requireRecording();
        }
        HeartbeatCadence told = cadence.get();
        return new HeartbeatResponse(told.leaseTtl().toMillis(), diff.start(), diff.kill(), ack, told.interval().toMillis(),
                follow);
    }

    /** The streams followed on the machine, or null when the database cannot say (the agent keeps what it ships). */
    private List<LogFollow> followsOn(String machineId) {
        try {
            return follows.apply(machineId);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Heartbeats are not being written: answering would renew a lease the reconciler does not know of. */
    public static final class NotRecorded extends RuntimeException {
        NotRecorded() {
            super("heartbeats cannot be recorded right now (the heartbeat writer is failing); not answered, so that no"
                    + " lease is renewed that the control plane does not see");
        }
    }

    private void requireRecording() {
        if (!heartbeats.healthy()) {
            throw new NotRecorded(); // heard all the same: recorded before, written when the writer works again
        }
    }

    /**
     * What the agent is to do: from this replica's view of its machine when the view says nothing is to be done and
     * the machine's incarnation is still the heartbeat's ({@link LiveViews}), else from a read of its attempts.
     */
    private AgentDiff diff(String machineId, long incarnation, AgentDiff.Reported reported, Instant now) {
        LiveViews kept = views;
        Optional<List<AssignedAttempt>> view = kept.fresh(machineId, incarnation);
        if (view.isPresent()) {
            AgentDiff fromView = AgentDiff.of(reported, view.get(), now);
            if (fromView.isEmpty()) {
                requireIncarnation(machineId, incarnation);
                kept.answered();
                return fromView;
            }
        }
        LiveViews.Ticket ticket = kept.beforeRead(machineId);
        List<AssignedAttempt> live = liveAttempts(machineId, incarnation);
        kept.remember(ticket, incarnation, live);
        return AgentDiff.of(reported, live, now);
    }

    /** The machine's live attempts, read with its incarnation: {@link Superseded} when a newer join took it. */
    private List<AssignedAttempt> liveAttempts(String machineId, long incarnation) {
        return machines.liveAttempts(machineId, incarnation).orElseThrow(() -> {
            identities.values().removeIf(i -> i.machineId().equals(machineId) && i.incarnation() == incarnation);
            return new Superseded(machineId, incarnation);
        });
    }

    private void requireIncarnation(String machineId, long incarnation) {
        if (machines.incarnation(machineId).orElse(-1L) != incarnation) {
            identities.values().removeIf(i -> i.machineId().equals(machineId) && i.incarnation() == incarnation);
            views.forget(machineId);
            throw new Superseded(machineId, incarnation);
        }
    }

    /** Where {@link #identities} keeps a credential's machine: its hash, never the credential. */
    private static String identityKey(String credential) {
        return Base64.getEncoder().encodeToString(hash(credential));
    }

    static byte[] hash(String credential) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(credential.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
