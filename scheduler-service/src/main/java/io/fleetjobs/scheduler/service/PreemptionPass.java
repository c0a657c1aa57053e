package io.fleetjobs.scheduler.service;

import io.fleetjobs.scheduler.core.Assignment;
import io.fleetjobs.scheduler.core.PendingJob;
import io.fleetjobs.scheduler.core.Preemption;
import io.fleetjobs.scheduler.core.Preemptions;
import io.fleetjobs.scheduler.core.RunningAttempt;
import io.fleetjobs.scheduler.core.Snapshot;
import io.fleetjobs.store.PreemptionStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * After a plan, the jobs that fit nowhere now may preempt: the highest-priority few ({@link #PER_ROUND}) are asked
 * of the engine ({@link Preemptions}) against the fleet as the plan left it, and their victims are marked
 * ({@code attempts.preempted_by}), which has their agents kill them ({@code AgentDiff}, kill "preempted"). A job
 * whose victims are still ending preempts nothing more; it waits, first in line by its priority, for the room.
 * @return what each preempting or waiting job's state reason says
 */
final class PreemptionPass {
    /** How many unplaced jobs of a round may preempt: bounds the reads a round costs. */
    static final int PER_ROUND = 8;

    private final PreemptionStore store;
    private final Preemptions.Scope scope;
    private final Counter preempted;
    private final VictimSearch search;

    /** @param quiet how long a read that found no victim below a priority spares jobs of it the next ({@link VictimSearch}) */
    PreemptionPass(PreemptionStore store, Preemptions.Scope scope, MeterRegistry meters, Duration quiet) {
        this.store = store;
        this.scope = scope;
        this.search = new VictimSearch(quiet);
        this.preempted = Counter.builder("scheduler.preemptions").description("attempts ended for a higher-priority job")
                .register(meters);
    }

    Map<UUID, String> decide(Snapshot snapshot, List<Assignment> planned, List<PendingJob> noRoom, Instant now) {
        Map<UUID, String> reasons = new LinkedHashMap<>();
        if (noRoom.isEmpty()) {
            return reasons;
        }
        List<PendingJob> first = noRoom.stream().sorted(Comparator.comparingInt(PendingJob::priority).reversed()
                .thenComparingLong(PendingJob::order)).limit(PER_ROUND).toList();
        Snapshot after = snapshot.withPlaced(planned);
        List<PreemptionStore.Candidate> candidates = null;
        Set<String> taken = new HashSet<>();
        for (PendingJob job : first) {
            if (store.waitingFor(job.jobId())) {
                reasons.put(job.jobId(), "waiting for the attempts it preempted to end");
                continue;
            }
            if (candidates == null) {
                int priority = first.getFirst().priority();
                if (search.worthReading(priority, now)) {
                    candidates = store.below(priority);
                    search.found(priority, candidates.stream().anyMatch(PreemptionStore.Candidate::preemptible), now);
                } else {
                    candidates = List.of(); // none below this priority (nor the rest's) could be preempted a moment ago
                }
            }
            Map<String, List<RunningAttempt>> running = new HashMap<>();
            Map<String, PreemptionStore.Candidate> byKey = new HashMap<>();
            for (PreemptionStore.Candidate c : candidates) {
                String key = c.jobId() + "/" + c.attempt();
                if (!taken.contains(key)) {
                    byKey.put(key, c);
                    running.computeIfAbsent(c.machineId(), m -> new ArrayList<>()).add(new RunningAttempt(c.jobId(),
                            c.attempt(), c.tenantId(), c.priority(), c.held(), c.placedAtMillis(), c.preemptible()));
                }
            }
            var decision = Preemptions.plan(after, job, running, scope);
            if (decision.isEmpty()) {
                continue;
            }
            Preemption p = decision.get();
            List<PreemptionStore.Candidate> victims = new ArrayList<>();
            for (RunningAttempt v : p.victims()) {
                String key = v.jobId() + "/" + v.attempt();
                taken.add(key);
                victims.add(byKey.get(key));
            }
            int marked = store.mark(job.jobId(), victims);
            preempted.increment(marked);
            reasons.put(job.jobId(), p.reason());
        }
        return reasons;
    }
}
