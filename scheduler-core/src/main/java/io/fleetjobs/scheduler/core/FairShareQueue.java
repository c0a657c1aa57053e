package io.fleetjobs.scheduler.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The order in which the engine decides jobs:
 * <ol>
 *   <li>priority, higher first: every job of a priority is decided before any job of a lower one;</li>
 *   <li>within a priority, weighted fair share: the next job comes from the tenant with the lowest
 *       dominant share ({@link TenantLedger#dominantShare}), as it stands after the placements made so
 *       far in this plan;</li>
 *   <li>then age: a tenant's jobs go oldest first, and between tenants of equal share the one whose
 *       next job is older goes first (then the smaller tenant id, so the order is total).</li>
 * </ol>
 *
 * <p>Protocol: {@link #next()} hands out one job; before calling it again the caller charges the
 * ledger if it placed that job. The tenant of the job handed out last is put back in line on the next
 * call, with its share as the ledger then says.
 */
final class FairShareQueue {
    private static final Comparator<PendingJob> OLDEST_FIRST =
            Comparator.comparingLong(PendingJob::order).thenComparing(PendingJob::jobId);
    private static final Comparator<Turn> LOWEST_SHARE_FIRST = Comparator.comparingDouble(Turn::share)
            .thenComparingLong(turn -> turn.jobs().peekFirst().order())
            .thenComparing(Turn::tenantId);

    private final TenantLedger ledger;
    private final Iterator<Map<UUID, ArrayDeque<PendingJob>>> levels;
    private final PriorityQueue<Turn> line = new PriorityQueue<>(LOWEST_SHARE_FIRST);
    private Turn served;

    FairShareQueue(List<PendingJob> jobs, TenantLedger ledger) {
        this.ledger = ledger;
        TreeMap<Integer, Map<UUID, List<PendingJob>>> byPriority = new TreeMap<>(Comparator.reverseOrder());
        for (PendingJob job : jobs) {
            byPriority.computeIfAbsent(job.priority(), p -> new HashMap<>())
                    .computeIfAbsent(job.tenantId(), t -> new ArrayList<>())
                    .add(job);
        }
        List<Map<UUID, ArrayDeque<PendingJob>>> sorted = new ArrayList<>();
        for (Map<UUID, List<PendingJob>> level : byPriority.values()) {
            Map<UUID, ArrayDeque<PendingJob>> queues = new HashMap<>();
            level.forEach((tenant, tenantJobs) -> {
                tenantJobs.sort(OLDEST_FIRST);
                queues.put(tenant, new ArrayDeque<>(tenantJobs));
            });
            sorted.add(queues);
        }
        this.levels = sorted.iterator();
    }

    /** The next job to decide, or null when every job has been handed out. */
    PendingJob next() {
        if (served != null && !served.jobs().isEmpty()) {
            line.add(new Turn(served.tenantId(), ledger.dominantShare(served.tenantId()), served.jobs()));
        }
        served = null;
        while (line.isEmpty()) {
            if (!levels.hasNext()) {
                return null;
            }
            levels.next().forEach((tenant, queue) ->
                    line.add(new Turn(tenant, ledger.dominantShare(tenant), queue)));
        }
        served = line.poll();
        return served.jobs().pollFirst();
    }

    /** A tenant waiting in line at one priority, with its share when it joined the line. */
    private record Turn(UUID tenantId, double share, ArrayDeque<PendingJob> jobs) {
    }
}
