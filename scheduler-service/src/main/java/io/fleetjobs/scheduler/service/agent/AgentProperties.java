package io.fleetjobs.scheduler.service.agent;

import io.fleetjobs.model.FencingBudget;
import io.fleetjobs.model.HeartbeatCadence;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param joinToken the cluster join token agents present ({@code JOBS_AGENT_JOIN_TOKEN}); joins are refused without one
 * @param heartbeatInterval how often agents heartbeat
 * @param leaseTtl an agent whose heartbeats go unanswered this long (counted from the send) sends SIGTERM to its
 *     attempts itself; told to agents at join and in every heartbeat reply (default 6 s)
 * @param maxWait the longest a heartbeat is held while there is nothing to do (default 2 s)
 * @param heartbeatFlush how often recorded heartbeats are written, in one statement
 * @param lostAfter how long a machine may be silent before the reconciler declares it lost ({@code
 *     jobs.reconciler.lost-after}, the same value): within it, a join for the machine must present its credential
 * @param killGrace how long after its lease's end an agent sends SIGKILL; told to agents at join (default 5 s)
 * @param clockSkewMargin what the fencing budget keeps for what no clock measures (default 1 s; see {@link FencingBudget})
 * @param maxHeartbeatsPerSecond what all replicas together should receive at most: past {@code rate x interval}
 *     machines the interval and the lease grow with the fleet (default 500; see {@link HeartbeatCadence})
 * @param cadenceRefresh how often the cadence is sized for the fleet again (default 5 s; the reconciler's
 *     {@code jobs.agent.cadence-refresh} must be the same)
 * @param maxLiveAttempts the most attempts a machine runs at once when its agent does not say (default 256)
 */
@ConfigurationProperties("jobs.agent")
public record AgentProperties(String joinToken, Duration heartbeatInterval, Duration leaseTtl, Duration maxWait,
        Duration heartbeatFlush, Duration lostAfter, Duration killGrace, Duration clockSkewMargin,
        Double maxHeartbeatsPerSecond, Duration cadenceRefresh, Integer maxLiveAttempts) {
    /** The most attempts a machine runs at once when neither its agent nor the settings say. */
    public static final int DEFAULT_MAX_LIVE_ATTEMPTS = 256;

    @org.springframework.boot.context.properties.bind.ConstructorBinding
    public AgentProperties {
        maxLiveAttempts = maxLiveAttempts == null ? DEFAULT_MAX_LIVE_ATTEMPTS : maxLiveAttempts;
        if (maxLiveAttempts < 1) {
            throw new IllegalArgumentException("jobs.agent.max-live-attempts must be at least 1: " + maxLiveAttempts);
        }
        maxHeartbeatsPerSecond = maxHeartbeatsPerSecond == null ? 500.0 : maxHeartbeatsPerSecond;
        cadenceRefresh = cadenceRefresh == null ? Duration.ofSeconds(5) : cadenceRefresh;
        heartbeatInterval = heartbeatInterval == null ? Duration.ofSeconds(2) : heartbeatInterval;
        leaseTtl = leaseTtl == null ? FencingBudget.DEFAULT_LEASE_TTL : leaseTtl;
        maxWait = maxWait == null ? FencingBudget.DEFAULT_LONGEST_HOLD : maxWait;
        heartbeatFlush = heartbeatFlush == null ? Duration.ofMillis(200) : heartbeatFlush;
        lostAfter = lostAfter == null ? FencingBudget.DEFAULT_LOST_AFTER : lostAfter;
        killGrace = killGrace == null ? FencingBudget.DEFAULT_KILL_GRACE : killGrace;
        clockSkewMargin = clockSkewMargin == null ? FencingBudget.DEFAULT_CLOCK_SKEW_MARGIN : clockSkewMargin;
    }

    public AgentProperties(String joinToken, Duration heartbeatInterval, Duration leaseTtl, Duration maxWait,
            Duration heartbeatFlush, Duration lostAfter, Duration killGrace, Duration clockSkewMargin,
            Double maxHeartbeatsPerSecond, Duration cadenceRefresh) {
        this(joinToken, heartbeatInterval, leaseTtl, maxWait, heartbeatFlush, lostAfter, killGrace, clockSkewMargin,
                maxHeartbeatsPerSecond, cadenceRefresh, null);
    }

    public AgentProperties(String joinToken, Duration heartbeatInterval, Duration leaseTtl, Duration maxWait,
            Duration heartbeatFlush, Duration lostAfter) {
        this(joinToken, heartbeatInterval, leaseTtl, maxWait, heartbeatFlush, lostAfter, null, null);
    }

    public AgentProperties(String joinToken, Duration heartbeatInterval, Duration leaseTtl, Duration maxWait,
            Duration heartbeatFlush, Duration lostAfter, Duration killGrace, Duration clockSkewMargin) {
        this(joinToken, heartbeatInterval, leaseTtl, maxWait, heartbeatFlush, lostAfter, killGrace, clockSkewMargin, null,
                null);
    }

    /** The cadence of a small fleet (the interval and lease above) and the rate past which it slows. */
    public HeartbeatCadence.Settings cadenceSettings() {
        return new HeartbeatCadence.Settings(heartbeatInterval, leaseTtl, maxHeartbeatsPerSecond);
    }

    /** What these settings promise about the fence; {@link FencingBudget#requireHolds()} says whether it holds. */
    public FencingBudget fencingBudget() {
        return new FencingBudget(leaseTtl, killGrace, maxWait, clockSkewMargin, lostAfter);
    }
}
