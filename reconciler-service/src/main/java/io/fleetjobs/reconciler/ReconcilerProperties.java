package io.fleetjobs.reconciler;

import io.fleetjobs.model.FencingBudget;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param interval how often every sweep runs
 * @param suspectAfter a machine silent this long takes no new work
 * @param lostAfter a machine silent this long is lost: its attempts are retried elsewhere (default 15 s). Longer
 *     than the agents' lease TTL + kill grace + the longest hold + a clock-skew margin ({@code FencingBudget},
 *     checked at start), so that a cut-off agent has killed its attempts before they run elsewhere
 * @param massSilenceShare more than this share of a region silent at once is an outage: nobody is declared lost
 * @param massSilenceMinMachines regions smaller than this are never judged by share
 * @param drainStreak attempts in a row that fail to start or are lost before a machine is drained
 * @param drainSharePerHour at most this share of a region's machines (but one) is drained automatically in an hour
 * @param allocationCheck how often the machines' counters are checked against the sum over their held attempts
 *     (default 15 s): the write door keeps them exact, so the check is a safety net against a bug, and it sums over
 *     every live attempt of the fleet (a tenth of PostgreSQL's time in W1 when it ran every second)
 */
@ConfigurationProperties("jobs.reconciler")
public record ReconcilerProperties(Duration interval, Duration suspectAfter, Duration lostAfter, Double massSilenceShare,
        Integer massSilenceMinMachines, Integer drainStreak,
        Double drainSharePerHour, Duration allocationCheck) {
    public ReconcilerProperties {
        interval = interval == null ? Duration.ofSeconds(1) : interval;
        suspectAfter = suspectAfter == null ? Duration.ofSeconds(6) : suspectAfter;
        lostAfter = lostAfter == null ? FencingBudget.DEFAULT_LOST_AFTER : lostAfter;
        massSilenceShare = massSilenceShare == null ? 0.5 : massSilenceShare;
        massSilenceMinMachines = massSilenceMinMachines == null ? 3 : massSilenceMinMachines;
        drainStreak = drainStreak == null ? 3 : drainStreak;
        drainSharePerHour = drainSharePerHour == null ? 0.1 : drainSharePerHour;
        allocationCheck = allocationCheck == null ? Duration.ofSeconds(15) : allocationCheck;
        if (allocationCheck.isNegative()) {
            throw new IllegalArgumentException("jobs.reconciler.allocation-check must not be negative, was "
                    + allocationCheck);
        }
    }
}
