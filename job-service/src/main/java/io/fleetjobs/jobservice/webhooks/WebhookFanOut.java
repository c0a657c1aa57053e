package io.fleetjobs.jobservice.webhooks;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.store.Json;
import io.fleetjobs.store.OutboxStore;
import io.fleetjobs.store.WebhookStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Turns the job events Kafka carries into deliveries waiting in PostgreSQL, a batch at a time: the offsets are
 * committed after the batch's rows are, so an event is queued at least once, and the rows' key (webhook, event)
 * makes a redelivered event queue nothing twice. Kafka is the carrier here, the deliveries table the truth. A
 * batch is matched against the webhooks that exist when it is handled, as a delivery is queued only for a webhook
 * created before its event ({@link WebhookEvents#wants}); while no tenant has one, the batch is not even read.
 */
@Component
@ConditionalOnProperty(name = "jobs.webhooks.enabled", matchIfMissing = true)
class WebhookFanOut {
    private static final Logger log = LoggerFactory.getLogger(WebhookFanOut.class);
    private final WebhookStore store;
    private final OutboxStore history;

    WebhookFanOut(WebhookStore store, OutboxStore history) {
        this.store = store;
        this.history = history;
    }

    /** What the fan-out reads of every event first: whose it is (most tenants have no webhooks). */
    record Whose(int schemaVersion, UUID tenantId) {
    }

    @KafkaListener(id = "webhooks", topics = JobEvent.TOPIC, groupId = "job-service-webhooks", batch = "true")
    void onEvents(List<String> records) {
        if (!store.any()) {
            return; // nothing read (a tenth of job-service's samples in W1's profile, where no tenant has one)
        }
        List<String> known = new ArrayList<>();
        List<UUID> owners = new ArrayList<>();
        Set<UUID> tenants = new HashSet<>();
        for (String json : records) {
            try {
                Whose whose = Json.read(json, Whose.class);
                if (whose.schemaVersion() == JobEvent.SCHEMA_VERSION && whose.tenantId() != null) {
                    known.add(json);
                    owners.add(whose.tenantId());
                    tenants.add(whose.tenantId());
                }
            } catch (RuntimeException e) {
                log.warn("skipping a record of {} that is not a job event: {}", JobEvent.TOPIC, e.getMessage());
            }
        }
        List<WebhookStore.Webhook> hooks = store.ofTenants(tenants);
        if (hooks.isEmpty()) {
            return;
        }
        Set<UUID> hooked = new HashSet<>();
        hooks.forEach(h -> hooked.add(h.tenantId()));
        List<JobEvent> claimed = new ArrayList<>();
        for (int i = 0; i < known.size(); i++) {
            if (!hooked.contains(owners.get(i))) {
                continue; // read in full only the events of tenants with webhooks
            }
            try {
                claimed.add(Json.read(known.get(i), JobEvent.class));
            } catch (RuntimeException e) {
                log.warn("skipping a record of {} that is not a job event: {}", JobEvent.TOPIC, e.getMessage());
            }
        }
        // a signed delivery says what PostgreSQL recorded, never what a record on the topic claims
        List<JobEvent> recorded = history.asRecorded(claimed);
        if (recorded.size() < claimed.size()) {
            log.warn("{} of {} records of {} name no event the history holds (forged, or their job deleted since):"
                    + " nothing delivered for them", claimed.size() - recorded.size(), claimed.size(), JobEvent.TOPIC);
        }
        List<WebhookStore.NewDelivery> deliveries = new ArrayList<>();
        for (JobEvent event : recorded) {
            String payload = null;
            for (WebhookStore.Webhook hook : hooks) {
                if (hook.tenantId().equals(event.tenantId()) && WebhookEvents.wants(hook.events(), hook.createdAt(), event)) {
                    payload = payload == null ? Json.write(WebhookEvents.Payload.of(event)) : payload;
                    deliveries.add(new WebhookStore.NewDelivery(hook.id(), event.eventId(), payload));
                }
            }
        }
        store.enqueue(deliveries);
    }
}
