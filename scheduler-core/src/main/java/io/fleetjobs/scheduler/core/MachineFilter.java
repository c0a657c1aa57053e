package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.UnplacedKind;

/**
 * One yes-or-no question about one machine for one job ("is it in the job's region?").
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #accepts} is pure: it reads the job and the machine's current state and changes neither,
 *       so it may be asked any number of times, in any order with other filters.</li>
 *   <li>It is cheap (no allocation on the hot path): the engine asks it for every candidate it looks at.</li>
 *   <li>{@link #stage()} says what a rejection depends on; only the job's attributes and the machine's
 *       size (stages {@link Stage#ATTRIBUTE} and {@link Stage#SIZE}) make it permanent: the engine calls
 *       a job that only such filters reject {@link UnplacedKind#CAN_NEVER_FIT}.</li>
 *   <li>{@link #explain} words a count of machines this filter rejected first, as in
 *       "9 lack GPU type H100"; it is called only when a job is left unplaced.</li>
 * </ul>
 * The order in which filters are asked matters only for the explanation; {@link FilterChain} sets it.
 */
interface MachineFilter {

    /** A stable key for this filter, used in {@link Unplaced#rejectedBy()}. */
    String name();

    Stage stage();

    /** Whether a rejection lasts whatever the machine's load and health. */
    default boolean permanent() {
        return stage().permanent;
    }

    boolean accepts(PendingJob job, MachineState machine);

    /**
     * Whether this filter could reject any machine for the job; false promises that {@link #accepts} is
     * true for every machine, which lets the engine skip the filter (a job naming no region has no use
     * for the region filter).
     */
    default boolean appliesTo(PendingJob job) {
        return true;
    }

    /** "{count} {verb} {what}", agreeing in number with {@code machines}, which is at least 1. */
    String explain(PendingJob job, int machines);

    /** What a filter's verdict depends on, from what lasts to what passes; {@link FilterChain} follows this order. */
    enum Stage {
        /** The job's region, GPU types and labels against the machine's: not its amounts. */
        ATTRIBUTE(true),
        /** The job's amounts against the machine's total capacity. */
        SIZE(true),
        /** The machine's status and heartbeat. */
        HEALTH(false),
        /** The job's amounts against the machine's free capacity. */
        CAPACITY(false);

        final boolean permanent;

        Stage(boolean permanent) {
            this.permanent = permanent;
        }
    }

    /** "1 has" or "3 have". */
    static String counted(int machines, String singular, String plural) {
        return machines + " " + (machines == 1 ? singular : plural);
    }
}
