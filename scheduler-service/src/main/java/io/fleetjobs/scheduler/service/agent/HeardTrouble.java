package io.fleetjobs.scheduler.service.agent;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The replica's own testimony that it may not be hearing its fleet: it shed a heartbeat (too busy, {@link
 * AgentService.Busy}), could not tell whose one was (its credential unread), or took too long over one. A writer that
 * cannot write is no such sign: it has heard, and the watermark waits for what it writes. Machines silent then may
 * be silent because of the control plane, not because they died, so while the replica is in trouble its heartbeat
 * watermark (how far it has written what it heard, the time the reconciler judges silence at) is held back to when
 * the trouble began: nothing is judged suspect, lost or expired on the evidence of a control plane that could not
 * listen. Trouble ends {@code calm} after its last sign (long enough for every agent it turned away to be heard
 * again); the watermark is never held back more than {@code maxHoldBack}, so a control plane in trouble for good
 * still declares its dead machines, that much later. Holding a watermark back only ever delays a judgement, so it can
 * never let a job run twice. Pure: the caller gives the time.
 */
public final class HeardTrouble {
    /** How far back a replica in trouble holds the judgement of silence at most. */
    public static final Duration MAX_HOLD_BACK = Duration.ofSeconds(60);

    private final Supplier<Duration> calm;
    private final Duration maxHoldBack;
    private Instant since;
    private Instant last;

    /** @param calm how long after its last sign trouble ends (the cadence's interval and lease, say) */
    public HeardTrouble(Supplier<Duration> calm, Duration maxHoldBack) {
        this.calm = calm;
        this.maxHoldBack = maxHoldBack;
    }

    /** A sign of trouble at {@code now}. */
    public synchronized void sign(Instant now) {
        if (!inTrouble(now)) {
            since = now;
        }
        if (last == null || now.isAfter(last)) {
            last = now;
        }
    }

    public synchronized boolean inTrouble(Instant now) {
        return last != null && !now.isAfter(last.plus(calm.get()));
    }

    /** The watermark to write at {@code now}: {@code heardUntil}, held back to the trouble's beginning while in it. */
    public synchronized Instant holdBack(Instant heardUntil, Instant now) {
        if (!inTrouble(now)) {
            return heardUntil;
        }
        Instant floor = now.minus(maxHoldBack);
        Instant held = since.isBefore(floor) ? floor : since;
        return held.isBefore(heardUntil) ? held : heardUntil;
    }
}
