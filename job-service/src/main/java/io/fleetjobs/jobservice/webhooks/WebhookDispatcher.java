package io.fleetjobs.jobservice.webhooks;

import io.fleetjobs.store.WebhookStore;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Sends the deliveries that are due, each in a virtual thread of its own, outside any transaction: claimed for a
 * lease, then deleted on a 2xx, tried again after {@link Retries}' wait on anything else, given up after the last
 * try. Redirects are not followed (one could lead past the address check), and the host's addresses are checked
 * again before each send. Several instances share the work: a claim skips what another holds.
 */
@Component
@ConditionalOnProperty(name = "jobs.webhooks.enabled", matchIfMissing = true)
public class WebhookDispatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebhookDispatcher.class);
    private final WebhookStore store;
    private final WebhookProperties properties;
    private final Retries retries;
    private final HostResolver resolver;
    private final InstantSource clock;
    private final HttpClient http;
    private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();

    public WebhookDispatcher(WebhookStore store, WebhookProperties properties, HostResolver resolver, InstantSource clock) {
        this.store = store;
        this.properties = properties;
        this.retries = properties.retries();
        this.resolver = resolver;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(properties.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** Sends what is due now and waits for the answers. @return how many deliveries it tried */
    @Scheduled(fixedDelayString = "${jobs.webhooks.dispatch-interval:500ms}")
    public int dispatch() {
        List<WebhookStore.Delivery> due = store.claimDue(properties.batch(), properties.claimLease());
        var sends = due.stream().map(d -> senders.submit(() -> send(d))).toList();
        for (var send : sends) {
            try {
                send.get();
            } catch (Exception e) {
                log.warn("a webhook delivery failed unexpectedly: {}", e.toString());
            }
        }
        return due.size();
    }

    private void send(WebhookStore.Delivery d) {
        URI uri = URI.create(d.url());
        Optional<String> refused = checkAddresses(uri, d.privateAllowed());
        if (refused.isPresent()) {
            fail(d, 0, "not sent: " + uri.getHost() + " " + refused.get());
            return;
        }
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(properties.requestTimeout())
                .header("Content-Type", "application/json")
                .header("User-Agent", "FleetJobs-Webhooks/1")
                .header(Signature.HEADER, Signature.sign(d.secret(), clock.instant().getEpochSecond(), d.payload()))
                .header("FleetJobs-Webhook-Id", d.webhookId().toString())
                .header("FleetJobs-Event-Id", d.eventId().toString())
                .header("FleetJobs-Delivery-Try", Integer.toString(d.tryNumber()))
                .POST(HttpRequest.BodyPublishers.ofString(d.payload())).build();
        try {
            HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
            if (response.statusCode() / 100 == 2) {
                store.delivered(d, response.statusCode());
            } else {
                fail(d, response.statusCode(), "answered " + response.statusCode());
            }
        } catch (java.io.IOException e) {
            fail(d, 0, "no answer: " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Optional<String> checkAddresses(URI uri, boolean privateAllowed) {
        try {
            return Destinations.addressProblem(resolver.resolve(uri.getHost()), privateAllowed);
        } catch (UnknownHostException e) {
            return Optional.of("cannot be resolved");
        }
    }

    private void fail(WebhookStore.Delivery d, int status, String error) {
        Duration wait = retries.after(d.tryNumber());
        store.failed(d, status, error, wait);
        if (wait == null) {
            log.warn("webhook {}: gave up event {} after {} tries: {}", d.webhookId(), d.eventId(), d.tryNumber(), error);
        }
    }

    @Override
    public void close() {
        senders.close();
    }
}
