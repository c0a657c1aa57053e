package io.fleetjobs.jobservice.outbox;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param batchSize history rows the relay reads, and events it publishes at most, per transaction
 * @param pollInterval how long the relay waits for a wake-up before looking again
 * @param sendTimeout how long a batch may wait for the broker's acknowledgements
 * @param enabled false to run no relay in this instance
 * @param gather how long the relay lets rows gather after a wake-up or a batch that was not full, before it reads
 *     again: one transaction and one request to the broker for the rows of many commits, not one each; 0 reads at once
 */
@ConfigurationProperties("jobs.outbox")
public record RelayProperties(Integer batchSize, Duration pollInterval, Duration sendTimeout, Boolean enabled,
        Duration gather) {
    public RelayProperties {
        batchSize = batchSize == null ? 1000 : batchSize;
        pollInterval = pollInterval == null ? Duration.ofMillis(500) : pollInterval;
        sendTimeout = sendTimeout == null ? Duration.ofSeconds(10) : sendTimeout;
        enabled = enabled == null || enabled;
        gather = gather == null ? Duration.ofMillis(20) : gather;
        if (gather.isNegative()) {
            throw new IllegalArgumentException("jobs.outbox.gather must not be negative, not " + gather);
        }
    }
}
