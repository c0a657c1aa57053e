package io.fleetjobs.scheduler.service;

import io.fleetjobs.scheduler.core.GangHolds;
import io.fleetjobs.scheduler.core.NeverFitsBackoff;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param batchSize jobs claimed per cycle
 * @param interval the safety-net cycle when no wake-up comes
 * @param heartbeatFreshness a machine whose last heartbeat is older takes no new work
 * @param leaseTtl how long a new attempt may wait for its agent to start it
 * @param retryNoRoom how long the claims pass over jobs that found no room, at most (sooner when room appears)
 * @param retryNeverFits when a job that no machine could ever host is looked at again (sooner when a machine joins)
 * @param retryStillNeverFits the same, for a job found so once more: a backlog of such jobs (a GPU model the fleet
 *     lacks) is otherwise claimed and written whole every {@code retryNeverFits}; at least {@code retryNeverFits} (by
 *     default 2 min, or {@code retryNeverFits} when that is longer); also the first backoff of a job found when no
 *     machine is registered at all
 * @param retryNeverFitsMax the longest such backoff: a job found so once more waits a quarter of its age, between
 *     {@code retryStillNeverFits} and this (by default 15 min, or {@code retryStillNeverFits} when that is longer), so
 *     that a backlog that fits nowhere for hours is not rewritten whole every 2 min; the backoff is a safety net, since
 *     what could let such a job fit (a machine joining, its tenant's quota changed) wakes it at once
 * @param snapshotMaxAge how long a replica plans on its cached view of machines and tenants' usage (when room appears,
 *     the machines are read again at once, and so is the usage if some tenant has a quota)
 * @param workers cycles a replica runs at once (their database work overlaps; they share one view)
 * @param gatherWakeUps how long after a worker's last cycle a wake-up waits, so that a burst of them (one per event:
 *     hundreds a second while jobs are submitted) is taken by one claim rather than one claim each; 0: none
 * @param noRoomReasonAfter how long a job waits for room before its first reason is written (most jobs that find no
 *     room at their first look are placed a moment later; {@code NoRoomReasons}); 0: at once; default 5 s
 * @param fairShareMaxAge how long the tenants' usage is planned on when no tenant has a quota (it then only orders
 *     tenants by dominant share, and its read sums over every live job: a tenth of PostgreSQL's time in W1 when it was
 *     read every second); at least {@code snapshotMaxAge}; default 5 s
 * @param gangPatience how long a gang waits before it holds the room it finds ({@link GangHolds}); default 2 min
 * @param gangHold how long due gangs hold at a stretch; default 10 min
 * @param gangRest how long they then rest, all at once, so that the jobs behind them take the room; 0: never; default
 *     1 min
 * @param gangBackfillMargin what a job backfilled onto a waiting gang's room must leave, besides its time limit, before
 *     the gang can start ({@link io.fleetjobs.scheduler.core.Backfill}): its start, its kill grace, the report of its
 *     end; default 1 min
 */
@ConfigurationProperties("jobs.scheduler")
public record SchedulerProperties(Integer batchSize, Duration interval, Duration heartbeatFreshness, Duration leaseTtl,
        Duration retryNoRoom, Duration retryNeverFits, Duration snapshotMaxAge, Integer workers, Duration gatherWakeUps,
        Duration retryStillNeverFits, Duration noRoomReasonAfter, Duration fairShareMaxAge, Duration retryNeverFitsMax,
        Duration gangPatience, Duration gangHold, Duration gangRest, Duration gangBackfillMargin) {
    @org.springframework.boot.context.properties.bind.ConstructorBinding
    public SchedulerProperties {
        gangBackfillMargin = gangBackfillMargin == null ? Duration.ofMinutes(1) : gangBackfillMargin;
        if (gangBackfillMargin.isNegative()) {
            throw new IllegalArgumentException("jobs.scheduler.gang-backfill-margin must not be negative, was "
                    + gangBackfillMargin);
        }
        gangPatience = gangPatience == null ? GangHolds.DEFAULT.patience() : gangPatience;
        gangHold = gangHold == null ? GangHolds.DEFAULT.hold() : gangHold;
        gangRest = gangRest == null ? GangHolds.DEFAULT.rest() : gangRest;
        new GangHolds(gangPatience, gangHold, gangRest); // refuses what it cannot hold to
        noRoomReasonAfter = noRoomReasonAfter == null ? Duration.ofSeconds(5) : noRoomReasonAfter;
        if (noRoomReasonAfter.isNegative()) {
            throw new IllegalArgumentException("jobs.scheduler.no-room-reason-after must not be negative, was "
                    + noRoomReasonAfter);
        }
        gatherWakeUps = gatherWakeUps == null ? Duration.ofMillis(50) : gatherWakeUps;
        if (gatherWakeUps.isNegative() || gatherWakeUps.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("jobs.scheduler.gather-wake-ups must be between 0 and 1s, was "
                    + gatherWakeUps);
        }
        batchSize = batchSize == null ? 500 : batchSize;
        interval = interval == null ? Duration.ofSeconds(1) : interval;
        heartbeatFreshness = heartbeatFreshness == null ? Duration.ofSeconds(10) : heartbeatFreshness;
        leaseTtl = leaseTtl == null ? Duration.ofSeconds(30) : leaseTtl;
        retryNoRoom = retryNoRoom == null ? Duration.ofSeconds(5) : retryNoRoom;
        retryNeverFits = retryNeverFits == null ? Duration.ofSeconds(30) : retryNeverFits;
        if (retryStillNeverFits == null) {
            retryStillNeverFits = retryNeverFits.compareTo(Duration.ofMinutes(2)) > 0 ? retryNeverFits : Duration.ofMinutes(2);
        }
        if (retryStillNeverFits.compareTo(retryNeverFits) < 0) {
            throw new IllegalArgumentException("jobs.scheduler.retry-still-never-fits (" + retryStillNeverFits
                    + ") must be at least retry-never-fits (" + retryNeverFits + ")");
        }
        if (retryNeverFitsMax == null) {
            retryNeverFitsMax = retryStillNeverFits.compareTo(Duration.ofMinutes(15)) > 0 ? retryStillNeverFits
                    : Duration.ofMinutes(15);
        }
        if (retryNeverFitsMax.compareTo(retryStillNeverFits) < 0) {
            throw new IllegalArgumentException("jobs.scheduler.retry-never-fits-max (" + retryNeverFitsMax
                    + ") must be at least retry-still-never-fits (" + retryStillNeverFits + ")");
        }
        snapshotMaxAge = snapshotMaxAge == null ? Duration.ofSeconds(1) : snapshotMaxAge;
        fairShareMaxAge = fairShareMaxAge == null ? Duration.ofSeconds(5) : fairShareMaxAge;
        if (fairShareMaxAge.compareTo(snapshotMaxAge) < 0) {
            fairShareMaxAge = snapshotMaxAge;
        }
        workers = workers == null ? 2 : workers;
        if (workers < 1) {
            throw new IllegalArgumentException("jobs.scheduler.workers must be at least 1, was " + workers);
        }
    }

    public SchedulerProperties(Integer batchSize, Duration interval, Duration heartbeatFreshness, Duration leaseTtl,
            Duration retryNoRoom, Duration retryNeverFits, Duration snapshotMaxAge, Integer workers, Duration gatherWakeUps,
            Duration retryStillNeverFits, Duration noRoomReasonAfter, Duration fairShareMaxAge, Duration retryNeverFitsMax) {
        this(batchSize, interval, heartbeatFreshness, leaseTtl, retryNoRoom, retryNeverFits, snapshotMaxAge, workers,
                gatherWakeUps, retryStillNeverFits, noRoomReasonAfter, fairShareMaxAge, retryNeverFitsMax, null, null, null, null);
    }

    public SchedulerProperties(Integer batchSize, Duration interval, Duration heartbeatFreshness, Duration leaseTtl,
            Duration retryNoRoom, Duration retryNeverFits, Duration snapshotMaxAge, Integer workers, Duration gatherWakeUps,
            Duration retryStillNeverFits, Duration noRoomReasonAfter) {
        this(batchSize, interval, heartbeatFreshness, leaseTtl, retryNoRoom, retryNeverFits, snapshotMaxAge, workers,
                gatherWakeUps, retryStillNeverFits, noRoomReasonAfter, null, null);
    }

    public SchedulerProperties(Integer batchSize, Duration interval, Duration heartbeatFreshness, Duration leaseTtl,
            Duration retryNoRoom, Duration retryNeverFits, Duration snapshotMaxAge, Integer workers) {
        this(batchSize, interval, heartbeatFreshness, leaseTtl, retryNoRoom, retryNeverFits, snapshotMaxAge, workers, null,
                null, null);
    }

    /** When a job that no machine could ever host is looked at again. */
    public NeverFitsBackoff neverFitsBackoff() {
        return new NeverFitsBackoff(retryNeverFits, retryStillNeverFits, retryNeverFitsMax);
    }

    /** When gangs hold the room they find. */
    public GangHolds gangHolds() {
        return new GangHolds(gangPatience, gangHold, gangRest);
    }

    public static SchedulerProperties defaults() {
        return new SchedulerProperties(null, null, null, null, null, null, null, null, null, null, null, null, null);
    }
}
