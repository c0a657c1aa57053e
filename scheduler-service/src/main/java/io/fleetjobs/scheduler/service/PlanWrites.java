package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.UnplacedKind;
import io.fleetjobs.scheduler.core.Assignment;
import io.fleetjobs.scheduler.core.NeverFitsBackoff;
import io.fleetjobs.scheduler.core.NoRoomReasons;
import io.fleetjobs.scheduler.core.Plan;
import io.fleetjobs.scheduler.core.Unplaced;
import io.fleetjobs.store.ClaimedJob;
import io.fleetjobs.store.PlacementStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a plan asks the store to write: the attempts of its assignments, and for every job it left unplaced its
 * reason (a preemptor's, where it preempts) and, if it could never fit, when to look at it again; but not the first
 * reason of a job that waits for room until {@link NoRoomReasons} says it waited long enough.
 *
 * <p>A job found with no machine registered at all ({@link Unplaced#NO_MACHINES}) waits the longer backoff at once:
 * only a machine joining can change that, and a join wakes every job that fitted nowhere
 * ({@code PlacementStore#wakeUnplaceable}). A fleet scaled to nothing would otherwise have each job submitted to it
 * claimed and written twice in its first minutes, for the same sentence.
 *
 * @param noRoom     unplaced for want of room now
 * @param passedOver unplaced for now (no room, or over quota): the next claims pass over them
 */
record PlanWrites(List<PlacementStore.NewAttempt> attempts, List<PlacementStore.Deferral> deferrals, int noRoom,
        int passedOver) {

    /**
     * @param backoffs when a job that no machine could ever host is looked at again
     *                 ({@link NeverFitsBackoff}: once more when its row already said so as it was claimed)
     * @param reasons whose first "no room" reason is due
     */
    static PlanWrites of(Plan plan, Map<UUID, ClaimedJob> claimed, Map<UUID, String> preempting,
            NeverFitsBackoff backoffs, NoRoomReasons reasons, Instant now) {
        List<PlacementStore.NewAttempt> attempts = new ArrayList<>(plan.assignments().size());
        for (Assignment a : plan.assignments()) {
            attempts.add(new PlacementStore.NewAttempt(claimed.get(a.jobId()), a.machineId(), a.amounts(), a.replica()));
        }
        List<PlacementStore.Deferral> deferrals = new ArrayList<>(plan.unplaced().size());
        int noRoom = 0;
        int passedOver = 0;
        for (Map.Entry<UUID, Unplaced> e : plan.unplaced().entrySet()) {
            UnplacedKind kind = e.getValue().kind();
            noRoom += kind == UnplacedKind.DOES_NOT_FIT_NOW ? 1 : 0;
            passedOver += kind == UnplacedKind.CAN_NEVER_FIT ? 0 : 1;
            ClaimedJob job = claimed.get(e.getKey());
            PlacementStore.Shown shown = job.shown();
            boolean waitsForRoom = kind != UnplacedKind.CAN_NEVER_FIT && !preempting.containsKey(job.id())
                    && (shown == null || shown.kind() == null);
            if (waitsForRoom && !reasons.due(job.id(), job.createdAt(), now)) {
                continue; // its first reason: not yet
            }
            boolean again = shown != null && shown.kind() == UnplacedKind.CAN_NEVER_FIT
                    || Unplaced.NO_MACHINES.equals(e.getValue().reason());
            deferrals.add(new PlacementStore.Deferral(e.getKey(), kind,
                    preempting.getOrDefault(e.getKey(), e.getValue().reason()),
                    kind != UnplacedKind.CAN_NEVER_FIT ? null : backoffs.until(now, job.createdAt(), again),
                    shown));
        }
        return new PlanWrites(List.copyOf(attempts), List.copyOf(deferrals), noRoom, passedOver);
    }
}
