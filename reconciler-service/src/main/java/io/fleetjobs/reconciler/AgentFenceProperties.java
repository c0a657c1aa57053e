package io.fleetjobs.reconciler;

import io.fleetjobs.model.FencingBudget;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The agents' fence as the scheduler tells it to them, {@code jobs.agent.*}: the reconciler declares a machine lost
 * only after it, so it must be given the scheduler's values (the defaults are the same). See {@link FencingBudget}.
 */
@ConfigurationProperties("jobs.agent")
public record AgentFenceProperties(Duration leaseTtl, Duration killGrace, Duration maxWait, Duration clockSkewMargin,
        Duration cadenceRefresh) {
    /** How often the scheduler's replicas read and set the heartbeat cadence ({@code jobs.agent.cadence-refresh}). */
    public static final Duration DEFAULT_CADENCE_REFRESH = Duration.ofSeconds(5);

    public AgentFenceProperties(Duration leaseTtl, Duration killGrace, Duration maxWait, Duration clockSkewMargin) {
        this(leaseTtl, killGrace, maxWait, clockSkewMargin, null);
    }

    @org.springframework.boot.context.properties.bind.ConstructorBinding
    public AgentFenceProperties {
        cadenceRefresh = cadenceRefresh == null ? DEFAULT_CADENCE_REFRESH : cadenceRefresh;
        leaseTtl = leaseTtl == null ? FencingBudget.DEFAULT_LEASE_TTL : leaseTtl;
        killGrace = killGrace == null ? FencingBudget.DEFAULT_KILL_GRACE : killGrace;
        maxWait = maxWait == null ? FencingBudget.DEFAULT_LONGEST_HOLD : maxWait;
        clockSkewMargin = clockSkewMargin == null ? FencingBudget.DEFAULT_CLOCK_SKEW_MARGIN : clockSkewMargin;
    }

    FencingBudget budget(Duration lostAfter) {
        return new FencingBudget(leaseTtl, killGrace, maxWait, clockSkewMargin, lostAfter);
    }
}
