package io.fleetjobs.jobservice.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fleetjobs.jobservice.JobServiceTestBase;
import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.Json;
import io.fleetjobs.testsupport.Api;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Webhooks through job-service as it runs, with a receiver of the test's own on loopback: a private destination is
 * refused until an admin allows it; a terminal change is delivered signed, retried past failures, and shown; a
 * delivery that never succeeds is given up after its last try; a tenant sees only its own webhooks.
 */
class WebhooksApiTest extends JobServiceTestBase {
    /** What the receiver was sent. */
    record Received(Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).findFirst()
                    .map(e -> e.getValue().getFirst()).orElse(null);
        }
    }

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger failFirst = new AtomicInteger();
    private HttpServer receiver;

    private String receiverUrl(int failures) throws IOException {
        failFirst.set(failures);
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/hook", exchange -> {
            received.add(new Received(Map.copyOf(exchange.getRequestHeaders()),
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            int status = failFirst.getAndDecrement() > 0 ? 500 : 204;
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        receiver.start();
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    }

    @AfterEach
    void stopReceiver() {
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    private static String hook(String url, String events) {
        return "{\"url\": \"" + url + "\", \"events\": [\"" + events + "\"]}";
    }

    private JsonNode onlyWebhook(Api tenant) {
        var items = tenant.get("/api/v1/webhooks").json().get("items");
        assertThat(items.size()).isEqualTo(1);
        return items.get(0);
    }

    @Test
    void aPrivateDestinationIsRefusedNamingTheUrlUntilAnAdminAllowsIt() throws IOException {
        Api tenant = newTenant("hooks-private");
        for (String url : List.of(receiverUrl(0), "http://169.254.169.254/latest/meta-data", "http://10.1.2.3/x",
                "http://[::1]:9/x")) {
            var refused = tenant.post("/api/v1/webhooks", hook(url, "terminal"));
            assertThat(refused.status()).as(url).isEqualTo(400);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("url");
            assertThat(refused.json().get("errors").get(0).get("message").asString()).contains("allowPrivateWebhooks");
        }
        var badEvents = tenant.post("/api/v1/webhooks", hook("https://hooks.example.com/x", "sometimes"));
        assertThat(badEvents.status()).isEqualTo(400);
        assertThat(badEvents.json().get("errors").get(0).get("field").asString()).isEqualTo("events");
        var badScheme = tenant.post("/api/v1/webhooks", hook("ftp://hooks.example.com/x", "all"));
        assertThat(badScheme.json().get("errors").get(0).get("field").asString()).isEqualTo("url");
        assertThat(tenant.get("/api/v1/webhooks").json().get("items").size()).as("nothing registered").isZero();

        var allowed = admin.patch("/api/v1/admin/tenants/hooks-private", "{\"allowPrivateWebhooks\": true}");
        assertThat(allowed.status()).isEqualTo(200);
        assertThat(allowed.json().get("allowPrivateWebhooks").asBoolean()).isTrue();
        var created = tenant.post("/api/v1/webhooks", hook(receiverUrl(0), "terminal"));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.field("secret")).startsWith("whsec_");
        assertThat(onlyWebhook(tenant).has("secret")).as("the secret is shown once").isFalse();
    }

    @Test
    void aTerminalChangeIsDeliveredSignedRetriedPastFailuresAndShown() throws IOException {
        Api tenant = newTenant("hooks-deliver");
        admin.patch("/api/v1/admin/tenants/hooks-deliver", "{\"allowPrivateWebhooks\": true}");
        var created = tenant.post("/api/v1/webhooks", hook(receiverUrl(2), "terminal"));
        String secret = created.field("secret");
        String job = tenant.post("/api/v1/jobs", spec("told")).field("id");
        assertThat(tenant.post("/api/v1/jobs/" + job + "/cancel", null).status()).isEqualTo(202);

        await().atMost(Duration.ofSeconds(30)).until(() -> onlyWebhook(tenant).get("lastStatus").asInt() == 204);
        assertThat(received).as("two answered 500, the third 204").hasSize(3);
        assertThat(received.stream().map(r -> r.header("FleetJobs-Event-Id")).distinct()).as("one event").hasSize(1);
        assertThat(received.stream().map(r -> r.header("FleetJobs-Delivery-Try")).toList()).containsExactly("1", "2", "3");
        for (Received r : received) {
            assertThat(Signature.verify(secret, r.header(Signature.HEADER), r.body())).as("signed").isTrue();
            assertThat(r.body()).contains("\"jobId\":\"" + job + "\"").contains("\"to\":\"CANCELED\"");
        }
        JsonNode shown = onlyWebhook(tenant);
        assertThat(shown.get("pending").asLong()).isZero();
        assertThat(shown.get("lastDeliveredAt").isNull()).isFalse();
        assertThat(shown.get("givenUp").asLong()).isZero();
    }

    @Test
    void aRecordOnTheTopicThatTheHistoryDoesNotHoldIsNeverDelivered() throws Exception {
        Api tenant = newTenant("hooks-forged");
        admin.patch("/api/v1/admin/tenants/hooks-forged", "{\"allowPrivateWebhooks\": true}");
        tenant.post("/api/v1/webhooks", hook(receiverUrl(0), "terminal"));
        UUID tenantId = UUID.fromString(admin.get("/api/v1/admin/tenants/hooks-forged").field("id"));
        UUID job = UUID.fromString(tenant.post("/api/v1/jobs", spec("lied-about")).field("id"));

        // whoever reaches Kafka (a job, where the network lets it) writes what it likes to the events' topic
        try (var producer = new KafkaProducer<String, String>(Map.of(
                "bootstrap.servers", KAFKA.bootstrapServers(),
                "key.serializer", StringSerializer.class,
                "value.serializer", StringSerializer.class))) {
            for (long version : List.of(1L, 2L, 50L)) {
                JobEvent forged = new JobEvent(UUID.randomUUID(),
                        JobEvent.SCHEMA_VERSION, JobEventType.STATE_CHANGED, job,
                        tenantId, version, Instant.now(), JobState.RUNNING,
                        JobState.SUCCEEDED, "forged", Map.of());
                producer.send(new ProducerRecord<>(JobEvent.TOPIC,
                        job.toString(), Json.write(forged))).get(30, TimeUnit.SECONDS);
            }
        }
        // the job's real end comes after the forgeries on its partition
        assertThat(tenant.post("/api/v1/jobs/" + job + "/cancel", null).status()).isEqualTo(202);

        await().atMost(Duration.ofSeconds(30)).until(() -> onlyWebhook(tenant).get("lastStatus").asInt() == 204);
        assertThat(received).as("the real end only").hasSize(1);
        assertThat(received.getFirst().body()).contains("\"to\":\"CANCELED\"").doesNotContain("forged")
                .doesNotContain("SUCCEEDED");
        assertThat(onlyWebhook(tenant).get("pending").asLong()).isZero();
    }

    @Test
    void aNameThatAnswersThePublicAddressItWasCheckedWithAndThenLoopbackNeverReachesLoopback() throws IOException {
        Api tenant = newTenant("hooks-rebind");
        String url = receiverUrl(0).replace("127.0.0.1", REBINDING);
        assertThat(tenant.post("/api/v1/webhooks", hook(url, "terminal")).status()).as("a public address").isEqualTo(201);
        String job = tenant.post("/api/v1/jobs", spec("rebound")).field("id");
        tenant.post("/api/v1/jobs/" + job + "/cancel", null);

        await().atMost(Duration.ofSeconds(30)).until(() -> !onlyWebhook(tenant).get("lastError").isNull()
                || !received.isEmpty());
        assertThat(received).as("the receiver on loopback was never sent to").isEmpty();
        assertThat(onlyWebhook(tenant).get("lastStatus").asInt()).isZero();
    }

    @Test
    void aReceiverThatHoldsItsRequestsDelaysNoOtherWebhooksDeliveries() throws Exception {
        var release = new CountDownLatch(1);
        var held = new AtomicInteger();
        HttpServer holding = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        holding.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        holding.createContext("/hold", exchange -> {
            held.incrementAndGet();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        holding.start();
        try {
            Api slow = newTenant("hooks-slow");
            admin.patch("/api/v1/admin/tenants/hooks-slow", "{\"allowPrivateWebhooks\": true}");
            slow.post("/api/v1/webhooks", hook("http://127.0.0.1:" + holding.getAddress().getPort() + "/hold", "terminal"));
            String held1 = slow.post("/api/v1/jobs", spec("held")).field("id");
            slow.post("/api/v1/jobs/" + held1 + "/cancel", null);
            await().atMost(Duration.ofSeconds(30)).until(() -> held.get() == 1);

            Api other = newTenant("hooks-bystander");
            admin.patch("/api/v1/admin/tenants/hooks-bystander", "{\"allowPrivateWebhooks\": true}");
            other.post("/api/v1/webhooks", hook(receiverUrl(0), "terminal"));
            String job = other.post("/api/v1/jobs", spec("told-at-once")).field("id");
            other.post("/api/v1/jobs/" + job + "/cancel", null);
            await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 1);
            assertThat(release.getCount()).as("the held request is still held").isOne();
            assertThat(received.getFirst().body()).contains(job);
        } finally {
            release.countDown();
            holding.stop(0);
        }
    }

    @Test
    void aDeliveryThatNeverSucceedsIsGivenUpAfterItsLastTryAndCounted() throws IOException {
        Api tenant = newTenant("hooks-down");
        admin.patch("/api/v1/admin/tenants/hooks-down", "{\"allowPrivateWebhooks\": true}");
        tenant.post("/api/v1/webhooks", hook(receiverUrl(Integer.MAX_VALUE), "terminal"));
        String job = tenant.post("/api/v1/jobs", spec("never")).field("id");
        tenant.post("/api/v1/jobs/" + job + "/cancel", null);

        await().atMost(Duration.ofSeconds(30)).until(() -> onlyWebhook(tenant).get("givenUp").asLong() == 1);
        JsonNode shown = onlyWebhook(tenant);
        assertThat(shown.get("lastStatus").asInt()).isEqualTo(500);
        assertThat(shown.get("lastError").asString()).isEqualTo("answered 500");
        assertThat(shown.get("pending").asLong()).isZero();
        assertThat(received).as("every try of the test's retry policy, then no more").hasSize(4);
    }

    @Test
    void aTenantSeesAndDeletesOnlyItsOwnWebhooks() {
        Api owner = newTenant("hooks-owner");
        Api other = newTenant("hooks-other");
        String id = owner.post("/api/v1/webhooks", hook("https://hooks.example.com/fleet", "all")).field("id");
        assertThat(other.get("/api/v1/webhooks").json().get("items").size()).isZero();
        assertThat(other.delete("/api/v1/webhooks/" + id).status()).isEqualTo(404);
        assertThat(owner.delete("/api/v1/webhooks/" + id).status()).isEqualTo(204);
        assertThat(owner.delete("/api/v1/webhooks/" + id).status()).isEqualTo(404);
    }
}
