package io.fleetjobs.jobservice.webhooks;

import io.fleetjobs.store.WebhookStore;
import java.io.IOException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Sends the deliveries that are due, each in a virtual thread of its own, outside any transaction: a few of each
 * webhook at a time (a receiver that is slow to answer holds back no other webhook's deliveries), claimed for a
 * lease, then deleted on a 2xx, tried again after {@link Retries}' wait on anything else, given up after the last
 * try. Redirects are not followed (one could lead past the address check), and the host's addresses are checked
 * at each connection, by the resolver that gives the connection its addresses ({@link CheckedResolver}): a name
 * cannot pass the check with one address and be reached at another. A send lasts at most the request timeout, however
 * slowly its receiver answers. Several instances share the work: a claim skips what another holds.
 */
@Component
@ConditionalOnProperty(name = "jobs.webhooks.enabled", matchIfMissing = true)
public class WebhookDispatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WebhookDispatcher.class);
    private final WebhookStore store;
    private final WebhookProperties properties;
    private final Retries retries;
    private final InstantSource clock;
    /** For tenants whose webhooks may reach only public addresses, and for those an admin allowed private ones. */
    private final CloseableHttpClient publicOnly;
    private final CloseableHttpClient privateAllowed;
    private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();
    /** The webhooks with sends in flight from here, which the next claims pass over, and how many sends fly. */
    private final Set<UUID> busy = ConcurrentHashMap.newKeySet();
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Cancels a send that outlasts the request timeout (the client's own timeouts bound each read, not the whole). */
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().factory());

    public WebhookDispatcher(WebhookStore store, WebhookProperties properties, HostResolver resolver, InstantSource clock) {
        this.store = store;
        this.properties = properties;
        this.retries = properties.retries();
        this.clock = clock;
        this.publicOnly = client(new CheckedResolver(resolver, false), properties);
        this.privateAllowed = client(new CheckedResolver(resolver, true), properties);
    }

    private static CloseableHttpClient client(CheckedResolver resolver, WebhookProperties properties) {
        Timeout request = Timeout.of(properties.requestTimeout());
        var connections = PoolingHttpClientConnectionManagerBuilder.create().setDnsResolver(resolver)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        .setConnectTimeout(Timeout.of(properties.connectTimeout())).setSocketTimeout(request).build())
                .setMaxConnTotal(properties.batch()).setMaxConnPerRoute(properties.batch()).build();
        return HttpClients.custom().setConnectionManager(connections).disableRedirectHandling()
                .disableAutomaticRetries().disableCookieManagement().setUserAgent("FleetJobs-Webhooks/1")
                .setDefaultRequestConfig(RequestConfig.custom().setConnectionRequestTimeout(request)
                        .setResponseTimeout(request).build())
                .build();
    }

    /**
     * Claims what is due now of the webhooks with no send in flight here, and sends it without waiting for the answers.
     * Runs every {@code jobs.webhooks.dispatch-interval} (500 ms by default). The schedule reads the property itself,
     * so its default lives only here and not in {@link WebhookProperties}.
     * @return how many deliveries it started
     */
    @Scheduled(fixedDelayString = "${jobs.webhooks.dispatch-interval:500ms}")
    public int dispatch() {
        int room = properties.batch() - inFlight.get();
        if (room <= 0) {
            return 0;
        }
        List<WebhookStore.Delivery> due = store.claimDue(room, properties.perWebhook(), properties.claimLease(),
                Set.copyOf(busy));
        due.stream().collect(Collectors.groupingBy(WebhookStore.Delivery::webhookId)).forEach((webhook, deliveries) -> {
            busy.add(webhook);
            inFlight.addAndGet(deliveries.size());
            var left = new AtomicInteger(deliveries.size());
            for (var d : deliveries) {
                senders.submit(() -> {
                    try {
                        send(d);
                    } catch (RuntimeException e) {
                        log.warn("a webhook delivery failed unexpectedly: {}", e.toString());
                    } finally {
                        inFlight.decrementAndGet();
                        if (left.decrementAndGet() == 0) {
                            busy.remove(webhook);
                        }
                    }
                });
            }
        });
        return due.size();
    }

    private void send(WebhookStore.Delivery d) {
        URI uri = URI.create(d.url());
        HttpPost request = new HttpPost(uri);
        request.setHeader(Signature.HEADER, Signature.sign(d.secret(), clock.instant().getEpochSecond(), d.payload()));
        request.setHeader("FleetJobs-Webhook-Id", d.webhookId().toString());
        request.setHeader("FleetJobs-Event-Id", d.eventId().toString());
        request.setHeader("FleetJobs-Delivery-Try", Integer.toString(d.tryNumber()));
        request.setEntity(new StringEntity(d.payload(), ContentType.APPLICATION_JSON));
        Duration limit = properties.requestTimeout();
        var deadline = deadlines.schedule(request::cancel, limit.toMillis(), TimeUnit.MILLISECONDS);
        try {
            int status = (d.privateAllowed() ? privateAllowed : publicOnly).execute(request, response -> response.getCode());
            if (status / 100 == 2) {
                store.delivered(d, status);
            } else {
                fail(d, status, "answered " + status);
            }
        } catch (CheckedResolver.Refused e) {
            fail(d, 0, "not sent: " + e.getMessage());
        } catch (UnknownHostException e) {
            fail(d, 0, "not sent: " + uri.getHost() + " cannot be resolved");
        } catch (IOException e) {
            fail(d, 0, request.isCancelled() ? "no answer within " + limit.toMillis() + " ms"
                    : "no answer: " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        } finally {
            deadline.cancel(false);
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
        deadlines.shutdownNow();
        publicOnly.close(CloseMode.IMMEDIATE);
        privateAllowed.close(CloseMode.IMMEDIATE);
    }
}
