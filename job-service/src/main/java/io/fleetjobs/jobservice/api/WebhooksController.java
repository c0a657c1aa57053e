package io.fleetjobs.jobservice.api;

import io.fleetjobs.jobservice.webhooks.Destinations;
import io.fleetjobs.jobservice.webhooks.HostResolver;
import io.fleetjobs.jobservice.webhooks.Signature;
import io.fleetjobs.jobservice.webhooks.WebhookEvents;
import io.fleetjobs.jobservice.webhooks.WebhookProperties;
import io.fleetjobs.store.WebhookStore;
import io.fleetjobs.support.CallerIdentity;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A tenant's webhooks: URLs told of its jobs' changes, each delivery signed with the webhook's secret (shown once,
 * at registration). A URL whose host resolves to a loopback, private or link-local address is refused unless an
 * admin allowed that for the tenant ({@link Destinations}).
 */
@RestController
@RequestMapping("/api/v1/webhooks")
@Tag(name = "webhooks")
class WebhooksController {
    private final WebhookStore store;
    private final HostResolver resolver;
    private final WebhookProperties properties;

    WebhooksController(WebhookStore store, HostResolver resolver, WebhookProperties properties) {
        this.store = store;
        this.resolver = resolver;
        this.properties = properties;
    }

    record NewWebhook(String url, List<String> events) {
    }

    /** A webhook as its tenant reads it, with its health; never its secret. */
    record WebhookView(UUID id, String url, List<String> events, Instant createdAt, Integer lastStatus,
            String lastError, Instant lastAttemptAt, Instant lastDeliveredAt, long pending, long givenUp) {
        static WebhookView of(WebhookStore.Webhook w) {
            return new WebhookView(w.id(), w.url(), List.of(w.events()), w.createdAt(), w.lastStatus(), w.lastError(),
                    w.lastAttemptAt(), w.lastDeliveredAt(), w.pending(), w.givenUp());
        }
    }

    /** The answer that registered a webhook: the only time its secret is shown. */
    record RegisteredWebhook(UUID id, String url, List<String> events, Instant createdAt, String secret) {
    }

    @Operation(operationId = "createWebhook", summary = "Register a webhook")
    @PostMapping
    ResponseEntity<RegisteredWebhook> create(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller,
            @RequestBody(required = false) NewWebhook body) {
        if (body == null) {
            throw ApiException.badRequest("body", "a webhook is required");
        }
        String events = events(body.events());
        Destinations.formProblem(body.url()).ifPresent(problem -> {
            throw ApiException.badRequest("url", problem);
        });
        String host = URI.create(body.url()).getHost();
        try {
            Destinations.addressProblem(resolver.resolve(host), store.privateAllowed(caller.tenantId()))
                    .ifPresent(problem -> {
                        throw ApiException.badRequest("url", host + " " + problem);
                    });
        } catch (UnknownHostException e) {
            throw ApiException.badRequest("url", host + " cannot be resolved");
        }
        WebhookStore.Webhook created = store.create(caller.tenantId(), body.url(), events, Signature.newSecret(),
                        properties.maxPerTenant())
                .orElseThrow(() -> ApiException.conflict("tenant " + caller.tenantName() + " has "
                        + properties.maxPerTenant() + " webhooks, the most it may have; delete one first"));
        return ResponseEntity.status(HttpStatus.CREATED).location(URI.create("/api/v1/webhooks/" + created.id()))
                .body(new RegisteredWebhook(created.id(), created.url(), List.of(created.events()), created.createdAt(),
                        created.secret()));
    }

    private static String events(List<String> events) {
        if (events == null || events.isEmpty()) {
            return WebhookEvents.TERMINAL;
        }
        if (events.size() != 1 || !WebhookEvents.KINDS.contains(events.getFirst())) {
            throw ApiException.badRequest("events", "must be [\"terminal\"] or [\"all\"]");
        }
        return events.getFirst();
    }

    @Operation(operationId = "listWebhooks", summary = "List the tenant's webhooks")
    @GetMapping
    JobView.Items<WebhookView> list(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller) {
        return new JobView.Items<>(store.list(caller.tenantId()).stream().map(WebhookView::of).toList());
    }

    @Operation(operationId = "deleteWebhook", summary = "Delete a webhook")
    @DeleteMapping("/{id}")
    ResponseEntity<Void> delete(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String id) {
        UUID webhookId;
        try {
            webhookId = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("webhook " + id);
        }
        if (!store.delete(caller.tenantId(), webhookId)) {
            throw ApiException.notFound("webhook " + id);
        }
        return ResponseEntity.noContent().build();
    }
}
