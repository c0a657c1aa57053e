package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AgentProtocol.AttemptRef;
import io.fleetjobs.model.agent.AgentProtocol.Kill;
import io.fleetjobs.model.agent.AgentProtocol.Lease;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AssignedAttempt;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What an agent is to do, from what its heartbeat says it runs and what the database says must run on its
 * machine: attempts to start, attempts to kill, and reports to settle (to write for the agent, who will not
 * send them: a start whose report was lost, an attempt canceled before it started). A pure function; the
 * heartbeat writes {@link #settle} and answers with {@link #start} and {@link #kill}.
 *
 * <pre>
 *  agent reports        database says (live on the machine)       bucket
 *  runs, epoch e        no such live attempt, or another epoch      kill "not current"
 *  runs, epoch e        epoch e, cancel asked                       kill "canceled"
 *  runs, epoch e        epoch e, preempted                          kill "preempted"
 *  runs, epoch e        epoch e, another replica of its gang failed kill "gang member failed"
 *  runs, epoch e        epoch e, RUNNING past its time limit + slack kill "timed out" (its agent did not stop it)
 *  runs, epoch e        epoch e, SCHEDULED                          settle RUNNING (its start report is late or lost)
 *  ended                SCHEDULED or RUNNING                        nothing: its end report is being applied
 *  nothing              cancel asked                                settle CANCELED (nothing to kill)
 *  nothing              SCHEDULED, preempted                        settle FAILED PREEMPTED (nothing to kill)
 *  nothing              SCHEDULED, another replica failed           settle FAILED GANG_MEMBER_FAILED (nothing to kill)
 *  nothing              SCHEDULED                                   start
 *  nothing              SCHEDULED, past what one read carries       nothing now; the answer is not held (startsLater)
 *  nothing              RUNNING past its time limit + slack         settle FAILED TIMEOUT (its agent runs nothing of it)
 *  nothing              RUNNING                                     nothing: the agent's next report settles it
 * </pre>
 * An attempt the agent reports ended is never leased again, though the database may not show the end yet (the
 * heartbeat writes its ends after reading what the database says, and an end whose attempt row another
 * transaction holds waits for the next heartbeat): the agent would ignore the lease, and an answer with nothing
 * new in it sends it to sleep out its heartbeat interval, deaf to the next placement on its machine.
 */
record AgentDiff(List<Lease> start, List<Kill> kill, List<AttemptReport> settle, boolean startsLater) {
    /**
     * How long past an attempt's time limit the control plane tells its agent to kill it: agents kill at their own
     * deadline, by their own clock; this is the backstop, late enough not to race them on a skewed clock. The
     * attempt keeps what it holds until its agent reports the process gone (or its machine is lost past the fence),
     * so a process that outlives its limit never shares its room with another job.
     */
    static final Duration TIME_LIMIT_SLACK = Duration.ofSeconds(5);

    /**
     * The most reports of one job a heartbeat is heard on: an agent has at most an attempt or two of a job at once (a
     * gang puts one replica on a machine); reports of one job are applied one after another, each its own statements.
     */
    static final int MAX_REPORTS_PER_JOB = 4;

    /**
     * What a heartbeat says of its machine's attempts, each report bound to the machine of its credential. A report
     * given again (the same attempt and lease epoch) counts once, and reports of one job past
     * {@link #MAX_REPORTS_PER_JOB} are not heard: one machine's heartbeat of thousands of copies held a database
     * permit of the agent API for as many rounds of statements, and sixteen of them turned every other agent away.
     */
    record Reported(String machineId, Map<AttemptRef, AttemptReport> running, List<AttemptReport> ended) {
        static Reported of(String machineId, List<AttemptReport> reports) {
            Map<AttemptRef, AttemptReport> running = new LinkedHashMap<>();
            List<AttemptReport> ended = new ArrayList<>();
            Set<List<Object>> seen = new HashSet<>();
            Map<UUID, Integer> perJob = new HashMap<>();
            for (AttemptReport report : reports) {
                if (!seen.add(Arrays.asList(report.jobId(), report.attempt(), report.epoch()))
                        || perJob.merge(report.jobId(), 1, Integer::sum) > MAX_REPORTS_PER_JOB) {
                    continue;
                }
                AttemptReport own = withMachine(report, machineId);
                if (own.endsAttempt()) {
                    ended.add(own);
                } else {
                    running.put(new AttemptRef(own.jobId(), own.attempt()), own);
                }
            }
            return new Reported(machineId, running, ended);
        }

        Set<AttemptRef> endedRefs() {
            Set<AttemptRef> refs = new LinkedHashSet<>();
            ended.forEach(r -> refs.add(new AttemptRef(r.jobId(), r.attempt())));
            return refs;
        }

        private static AttemptReport withMachine(AttemptReport r, String machineId) {
            return new AttemptReport(r.jobId(), r.attempt(), r.epoch(), machineId, r.state(), r.exitCode(),
                    r.failureReason(), r.startedAt(), r.finishedAt(), r.stdoutTail(), r.stderrTail());
        }
    }

    /** Whether there is nothing to do at all: nothing to tell the agent and nothing to write for it. */
    boolean isEmpty() {
        return tellsNothing() && settle.isEmpty();
    }

    /**
     * Whether the answer has nothing to say to the agent (settling is not said to it), nor anything to start once
     * it has started these: such an answer may be held.
     */
    boolean tellsNothing() {
        return start.isEmpty() && kill.isEmpty() && !startsLater;
    }

    /** @param now the end of an attempt canceled before it started, and what time limits are judged against */
    static AgentDiff of(Reported reported, List<AssignedAttempt> liveAttempts, Instant now) {
        List<Lease> start = new ArrayList<>();
        List<Kill> kill = new ArrayList<>();
        List<AttemptReport> settle = new ArrayList<>();
        boolean later = false;
        Map<AttemptRef, AssignedAttempt> live = new HashMap<>();
        for (AssignedAttempt a : liveAttempts) {
            live.put(new AttemptRef(a.jobId(), a.attempt()), a);
        }
        reported.running().forEach((ref, report) -> {
            AssignedAttempt a = live.get(ref);
            if (a == null || a.epoch() != report.epoch()) {
                kill.add(new Kill(ref.jobId(), ref.attempt(), "not current: this attempt must not run"));
            }
        });
        Set<AttemptRef> ended = reported.endedRefs();
        for (AssignedAttempt a : liveAttempts) {
            AttemptRef ref = new AttemptRef(a.jobId(), a.attempt());
            AttemptReport running = reported.running().get(ref);
            if (running != null && running.epoch() == a.epoch()) {
                if (a.cancelRequested()) {
                    kill.add(new Kill(ref.jobId(), ref.attempt(), "canceled"));
                } else if (a.preempted()) {
                    kill.add(new Kill(ref.jobId(), ref.attempt(), AgentProtocol.PREEMPTED));
                } else if (a.gangFailed()) {
                    kill.add(new Kill(ref.jobId(), ref.attempt(), AgentProtocol.GANG_MEMBER_FAILED));
                } else if (overdue(a, now)) {
                    kill.add(new Kill(ref.jobId(), ref.attempt(), AgentProtocol.TIMED_OUT));
                } else if (a.state() == AttemptState.SCHEDULED) {
                    settle.add(running);
                }
            } else if (ended.contains(ref)) {
                continue;
            } else if (a.cancelRequested()) {
                settle.add(new AttemptReport(a.jobId(), a.attempt(), a.epoch(), reported.machineId(), AttemptState.CANCELED,
                        null, null, null, now, null, null));
            } else if (a.preempted() && a.state() == AttemptState.SCHEDULED) {
                settle.add(new AttemptReport(a.jobId(), a.attempt(), a.epoch(), reported.machineId(), AttemptState.FAILED,
                        null, FailureReason.PREEMPTED, null, now, null, null));
            } else if (a.state() == AttemptState.RUNNING && overdue(a, now)) {
                settle.add(new AttemptReport(a.jobId(), a.attempt(), a.epoch(), reported.machineId(), AttemptState.FAILED,
                        null, FailureReason.TIMEOUT, null, now, null, null));
            } else if (a.gangFailed() && a.state() == AttemptState.SCHEDULED) {
                settle.add(new AttemptReport(a.jobId(), a.attempt(), a.epoch(), reported.machineId(), AttemptState.FAILED,
                        null, FailureReason.GANG_MEMBER_FAILED, null, now, null, null));
            } else if (a.startsLater()) {
                later = true; // past what one read carries: the answer comes at once, and the next heartbeat starts it
            } else if (a.state() == AttemptState.SCHEDULED) {
                var execution = a.execution();
                start.add(new Lease(a.jobId(), a.attempt(), a.epoch(), execution.command(), execution.env(),
                        execution.timeoutSeconds(), a.cpuMillis(), a.memoryMb(), a.gpus(), a.startWithinMs(), a.gang(),
                        execution.network()));
            }
        }
        return new AgentDiff(List.copyOf(start), List.copyOf(kill), List.copyOf(settle), later);
    }

    private static boolean overdue(AssignedAttempt a, Instant now) {
        return a.timeLimitEndsAt() != null && now.isAfter(a.timeLimitEndsAt().plus(TIME_LIMIT_SLACK));
    }
}
