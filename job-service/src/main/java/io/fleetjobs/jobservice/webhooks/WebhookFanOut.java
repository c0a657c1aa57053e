package io.fleetjobs.jobservice.webhooks;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.store.Json;
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
 * makes a redelivered event queue nothing twice. Kafka is the carrier here, the deliveries table the truth.
 */
@Component
@ConditionalOnProperty(name = "jobs.webhooks.enabled", matchIfMissing = true)
class WebhookFanOut {
    private static final Logger log = LoggerFactory.getLogger(WebhookFanOut.class);
    private final WebhookStore store;

    WebhookFanOut(WebhookStore store) {
        this.store = store;
    }

    @KafkaListener(id = "webhooks", topics = JobEvent.TOPIC, groupId = "job-service-webhooks", batch = "true")
    void onEvents(List<String> records) {
        List<JobEvent> events = new ArrayList<>();
        Set<UUID> tenants = new HashSet<>();
        for (String json : records) {
            try {
                JobEvent event = Json.read(json, JobEvent.class);
                if (event.schemaVersion() == JobEvent.SCHEMA_VERSION && event.tenantId() != null) {
                    events.add(event);
                    tenants.add(event.tenantId());
                }
            } catch (RuntimeException e) {
                log.warn("skipping a record of {} that is not a job event: {}", JobEvent.TOPIC, e.getMessage());
            }
        }
        List<WebhookStore.Webhook> hooks = store.ofTenants(tenants);
        if (hooks.isEmpty()) {
            return;
        }
        List<WebhookStore.NewDelivery> deliveries = new ArrayList<>();
        for (JobEvent event : events) {
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
