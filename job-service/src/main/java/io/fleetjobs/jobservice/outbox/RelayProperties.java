package io.fleetjobs.jobservice.outbox;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param batchSize rows published per transaction (over every shard the relay holds)
 * @param pollInterval how long the relay waits for a wake-up before looking again
 * @param sendTimeout how long a batch may wait for the broker's acknowledgements
 * @param enabled false to run no relay in this instance
 */
@ConfigurationProperties("jobs.outbox")
public record RelayProperties(Integer batchSize, Duration pollInterval, Duration sendTimeout, Boolean enabled) {
    public RelayProperties {
        batchSize = batchSize == null ? 1000 : batchSize;
        pollInterval = pollInterval == null ? Duration.ofMillis(500) : pollInterval;
        sendTimeout = sendTimeout == null ? Duration.ofSeconds(10) : sendTimeout;
        enabled = enabled == null || enabled;
    }
}
