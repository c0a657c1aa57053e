package io.fleetjobs.scheduler.service.agent;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param joinToken the cluster join token agents present ({@code JOBS_AGENT_JOIN_TOKEN}); joins are refused without one
 * @param heartbeatInterval how often agents heartbeat
 * @param leaseTtl an agent that cannot renew for this long kills its attempts itself
 * @param maxWait the longest a heartbeat is held while there is nothing to do
 * @param heartbeatFlush how often recorded heartbeats are written, in one statement
 * @param lostAfter how long a machine may be silent before the reconciler declares it lost ({@code
 *     jobs.reconciler.lost-after}, the same value): within it, a join for the machine must present its credential
 */
@ConfigurationProperties("jobs.agent")
public record AgentProperties(String joinToken, Duration heartbeatInterval, Duration leaseTtl, Duration maxWait,
        Duration heartbeatFlush, Duration lostAfter) {
    public AgentProperties {
        heartbeatInterval = heartbeatInterval == null ? Duration.ofSeconds(2) : heartbeatInterval;
        leaseTtl = leaseTtl == null ? Duration.ofSeconds(10) : leaseTtl;
        maxWait = maxWait == null ? Duration.ofSeconds(5) : maxWait;
        heartbeatFlush = heartbeatFlush == null ? Duration.ofMillis(200) : heartbeatFlush;
        lostAfter = lostAfter == null ? Duration.ofSeconds(15) : lostAfter;
    }
}
