package io.fleetjobs.jobservice.webhooks;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * @param maxPerTenant      how many webhooks one tenant may register
 * @param retryBase         the wait after a delivery's first failure, doubled after each next one
 * @param retryMax          the longest wait between tries
 * @param tries             how many tries a delivery gets before it is given up
 * @param batch             deliveries this instance sends at once, at most (by default five times what one tenant's
 *                          webhooks may hold: {@code maxPerTenant × perWebhook})
 * @param perWebhook        deliveries of one webhook this instance sends at once, at most: a receiver slow to answer
 *                          holds back no other webhook's
 * @param claimLease        how long a claimed delivery is this dispatcher's before another may send it again
 * @param connectTimeout    the longest wait for a receiver's connection
 * @param requestTimeout    the longest wait for a receiver's answer
 * @param enabled           false to run no fan-out and no dispatcher in this instance (the API stays)
 */
@ConfigurationProperties("jobs.webhooks")
public record WebhookProperties(Integer maxPerTenant, Duration retryBase, Duration retryMax, Integer tries,
        Integer batch, Integer perWebhook, Duration claimLease, Duration connectTimeout, Duration requestTimeout,
        Boolean enabled) {
    public WebhookProperties {
        maxPerTenant = maxPerTenant == null ? 10 : maxPerTenant;
        retryBase = retryBase == null ? Retries.DEFAULT.base() : retryBase;
        retryMax = retryMax == null ? Retries.DEFAULT.max() : retryMax;
        tries = tries == null ? Retries.DEFAULT.tries() : tries;
        batch = batch == null ? 500 : batch;
        perWebhook = perWebhook == null ? 10 : perWebhook;
        claimLease = claimLease == null ? Duration.ofSeconds(60) : claimLease;
        connectTimeout = connectTimeout == null ? Duration.ofSeconds(5) : connectTimeout;
        requestTimeout = requestTimeout == null ? Duration.ofSeconds(10) : requestTimeout;
        enabled = enabled == null || enabled;
    }

    Retries retries() {
        return new Retries(retryBase, retryMax, tries);
    }
}
