package io.fleetjobs.jobservice.events;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param pollInterval       how often the feed reads new changes for all open streams of this instance
 * @param grace              how long a hole in the positions is waited for (a transaction committing late) before
 *                           the feed steps over it
 * @param heartbeat          how often an idle stream writes a comment line, so that proxies keep it open
 * @param maxStreamsPerTenant open streams of one tenant on one instance; one more is 429
 * @param queueCapacity      changes held for one stream whose client is slow before the stream is ended
 */
@ConfigurationProperties("jobs.events")
public record EventsProperties(Duration pollInterval, Duration grace, Duration heartbeat, Integer maxStreamsPerTenant,
        Integer queueCapacity) {
    public EventsProperties {
        pollInterval = pollInterval == null ? Duration.ofMillis(250) : pollInterval;
        grace = grace == null ? Duration.ofSeconds(2) : grace;
        heartbeat = heartbeat == null ? Duration.ofSeconds(15) : heartbeat;
        maxStreamsPerTenant = maxStreamsPerTenant == null ? 32 : maxStreamsPerTenant;
        queueCapacity = queueCapacity == null ? 10_000 : queueCapacity;
    }
}
