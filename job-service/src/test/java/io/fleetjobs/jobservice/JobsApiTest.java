package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.model.JobState;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Transition;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.testsupport.Api;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import tools.jackson.databind.JsonNode;

class JobsApiTest extends JobServiceTestBase {
    @Autowired
    JobStore store;

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    @Test
    void jobsAdmittedWithTheirSubmitLeaveNoListenerReadingEveryEventForAdmission() {
        assertThat(listeners.getListenerContainer("admission")).isNull();
        assertThat(listeners.getListenerContainerIds()).contains("webhooks");
    }

    @Test
    void aJobIsSubmittedAdmittedReadCanceledAndFollowed() {
        Api alice = newTenant("alice");
        var created = alice.post("/api/v1/jobs", spec("hello"));
        assertThat(created.status()).isEqualTo(201);
        String id = created.field("id");
        assertThat(created.location()).isEqualTo("/api/v1/jobs/" + id);
        JsonNode job = created.json();
        assertThat(job.get("tenant").asString()).isEqualTo("alice");
        assertThat(job.get("queue").asString()).isEqualTo("default");
        assertThat(job.get("priority").asInt()).isEqualTo(500);
        assertThat(job.get("retry").get("maxAttempts").asInt()).isEqualTo(3);
        assertThat(job.get("resources").get("gpuCount").asInt()).isZero();
        assertThat(job.get("attempt").asInt()).isZero();
        assertThat(job.get("cancelRequested").asBoolean()).isFalse();

        // admitted with the submit: QUEUED at once
        await().atMost(Duration.ofSeconds(20)).until(() -> "QUEUED".equals(alice.get("/api/v1/jobs/" + id).field("state")));

        var canceled = alice.post("/api/v1/jobs/" + id + "/cancel", null);
        assertThat(canceled.status()).isEqualTo(202);
        assertThat(canceled.field("state")).isEqualTo("CANCELED");
        assertThat(canceled.field("finishedAt")).isNotNull();
        var again = alice.post("/api/v1/jobs/" + id + "/cancel", null);
        assertThat(again.status()).isEqualTo(202);
        assertThat(again.field("updatedAt")).isEqualTo(canceled.field("updatedAt"));

        JsonNode events = alice.get("/api/v1/jobs/" + id + "/events").json().get("items");
        assertThat(events.size()).isEqualTo(3);
        assertThat(events.get(0).get("from").isNull()).isTrue();
        assertThat(events.get(0).get("to").asString()).isEqualTo("SUBMITTED");
        assertThat(events.get(1).get("to").asString()).isEqualTo("QUEUED");
        assertThat(events.get(2).get("from").asString()).isEqualTo("QUEUED");
        assertThat(events.get(2).get("to").asString()).isEqualTo("CANCELED");
        assertThat(events.get(2).get("reason").asString()).isEqualTo("canceled by user");
        assertThat(alice.get("/api/v1/jobs/" + id + "/attempts").json().get("items").size()).isZero();
    }

    @Test
    void aJobOnAMachineIsCanceledByRequestAndAnEndedOneCannotBe() {
        Api bob = newTenant("bob");
        UUID running = UUID.fromString(bob.post("/api/v1/jobs", spec("long")).field("id"));
        UUID done = UUID.fromString(bob.post("/api/v1/jobs", spec("short")).field("id"));
        driveTo(running, JobState.RUNNING);
        driveTo(done, JobState.SUCCEEDED);

        var requested = bob.post("/api/v1/jobs/" + running + "/cancel", null);
        assertThat(requested.status()).isEqualTo(202);
        assertThat(requested.field("state")).isEqualTo("RUNNING");
        assertThat(requested.json().get("cancelRequested").asBoolean()).isTrue();
        long version = store.get(running).orElseThrow().version();
        assertThat(bob.post("/api/v1/jobs/" + running + "/cancel", null).status()).isEqualTo(202);
        assertThat(store.get(running).orElseThrow().version()).as("asking twice changes nothing").isEqualTo(version);

        var refused = bob.post("/api/v1/jobs/" + done + "/cancel", null);
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(bob.get("/api/v1/jobs/" + done).field("state")).isEqualTo("SUCCEEDED");
    }

    /** Moves a job along the happy path as the scheduler and an agent would (later issues). */
    private void driveTo(UUID id, JobState target) {
        await().atMost(Duration.ofSeconds(20)).until(() -> store.get(id).orElseThrow().state() == JobState.QUEUED);
        for (JobState next : List.of(JobState.SCHEDULED, JobState.RUNNING, JobState.SUCCEEDED)) {
            var job = store.get(id).orElseThrow();
            Transition t = Transition.to(next, "test");
            if (next == JobState.SCHEDULED) {
                t.onAttempt(1, null);
            }
            assertThat(store.transition(job, t)).isPresent();
            if (next == target) {
                return;
            }
        }
    }

    @Test
    void theSameKeyReplaysAndAnotherBodyUnderItConflicts() {
        Api carol = newTenant("carol");
        var first = carol.post("/api/v1/jobs", spec("idem"), Map.of("Idempotency-Key", "k-1"));
        var replay = carol.post("/api/v1/jobs", spec("idem"), Map.of("Idempotency-Key", "k-1"));
        assertThat(first.status()).isEqualTo(201);
        assertThat(replay.status()).isEqualTo(200);
        assertThat(replay.field("id")).isEqualTo(first.field("id"));
        var conflict = carol.post("/api/v1/jobs", spec("other"), Map.of("Idempotency-Key", "k-1"));
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(carol.get("/api/v1/jobs?limit=500").json().get("items").size()).isEqualTo(1);
    }

    @Test
    void listingPagesNewestFirstAndFiltersByState() {
        Api dave = newTenant("dave");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ids.add(dave.post("/api/v1/jobs", spec("page-" + i)).field("id"));
        }
        assertThat(allPages(dave)).containsExactlyElementsOf(ids.reversed());

        dave.post("/api/v1/jobs/" + ids.getFirst() + "/cancel", null);
        dave.post("/api/v1/jobs/" + ids.get(4) + "/cancel", null);
        var canceled = dave.get("/api/v1/jobs?state=CANCELED").json().get("items");
        assertThat(canceled.size()).isEqualTo(2);
        assertThat(canceled.get(0).get("id").asString()).isEqualTo(ids.get(4));
        assertThat(canceled.get(1).get("id").asString()).isEqualTo(ids.getFirst());
        // jobs in different states: still one list, newest first, page by page
        assertThat(allPages(dave)).containsExactlyElementsOf(ids.reversed());
    }

    @Test
    void listingFiltersByQueueLabelAndNameOnTheServer() {
        Api gwen = newTenant("gwen");
        String vision = gwen.post("/api/v1/jobs", """
                {"name": "train-ResNet", "queue": "gpu", "labels": {"team": "vision"}, "resources": {"cpu": 0.5, "memoryMb": 256},
                 "execution": {"command": ["true"]}}""").field("id");
        String nlp = gwen.post("/api/v1/jobs", """
                {"name": "train-bert", "queue": "gpu", "labels": {"team": "nlp"}, "resources": {"cpu": 0.5, "memoryMb": 256},
                 "execution": {"command": ["true"]}}""").field("id");
        String plain = gwen.post("/api/v1/jobs", spec("resnet-eval")).field("id");
        assertThat(ids(gwen, "queue=gpu")).containsExactly(nlp, vision);
        assertThat(ids(gwen, "label=team%3Dvision")).containsExactly(vision);
        assertThat(ids(gwen, "label=team")).containsExactly(nlp, vision);
        assertThat(ids(gwen, "name=resnet")).as("a part of the name, in any case").containsExactly(plain, vision);
        assertThat(ids(gwen, "name=resnet&queue=gpu&label=team%3Dvision")).containsExactly(vision);
        assertThat(ids(gwen, "label=team%3Dvision&limit=1")).as("a page of matches, not a filtered page").containsExactly(vision);
        assertThat(gwen.get("/api/v1/jobs?label=%3Dvision").status()).isEqualTo(400);
    }

    @Test
    void theLastHourCountsTheCallersChangesByState() {
        Api hana = newTenant("hana");
        Api ivan = newTenant("ivy");
        String first = hana.post("/api/v1/jobs", spec("counted-1")).field("id");
        hana.post("/api/v1/jobs", spec("counted-2"));
        hana.post("/api/v1/jobs/" + first + "/cancel", null);
        var activity = hana.get("/api/v1/activity").json();
        assertThat(activity.get("bucketSeconds").asInt()).isEqualTo(300);
        assertThat(entered(activity, "SUBMITTED")).isEqualTo(2);
        assertThat(entered(activity, "CANCELED")).isEqualTo(1);
        assertThat(entered(ivan.get("/api/v1/activity").json(), "SUBMITTED")).as("another tenant's jobs").isZero();
    }

    @Test
    void aCallersActivityIsReadOncePerTheCachesLifeHoweverOftenItAsks() {
        Api kai = newTenant("activity-kai");
        assertThat(entered(kai.get("/api/v1/activity").json(), "SUBMITTED")).isZero();
        kai.post("/api/v1/jobs", spec("after-the-read"));
        for (int i = 0; i < 20; i++) {
            assertThat(entered(kai.get("/api/v1/activity").json(), "SUBMITTED")).as("the first read's answer").isZero();
        }
        await().atMost(Duration.ofSeconds(30))
                .until(() -> entered(kai.get("/api/v1/activity").json(), "SUBMITTED") == 1);
    }

    private static long entered(JsonNode activity, String state) {
        long n = 0;
        for (var bucket : activity.get("buckets")) {
            n += bucket.get("entered").path(state).asLong(0);
        }
        return n;
    }

    private static List<String> ids(Api api, String query) {
        List<String> ids = new ArrayList<>();
        api.get("/api/v1/jobs?" + query).json().get("items").forEach(j -> ids.add(j.get("id").asString()));
        return ids;
    }

    private static List<String> allPages(Api api) {
        List<String> seen = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            var page = api.get("/api/v1/jobs?limit=3" + (token == null ? "" : "&pageToken=" + token)).json();
            page.get("items").forEach(j -> seen.add(j.get("id").asString()));
            token = page.get("nextPageToken").isNull() ? null : page.get("nextPageToken").asString();
            pages++;
        } while (token != null);
        assertThat(pages).isEqualTo(3);
        return seen;
    }

    @Test
    void tenantsAreIsolatedAndCallersAuthenticated() {
        Api erin = newTenant("erin");
        Api frank = newTenant("frank");
        String id = erin.post("/api/v1/jobs", spec("secret")).field("id");
        for (String path : List.of("/api/v1/jobs/" + id, "/api/v1/jobs/" + id + "/attempts", "/api/v1/jobs/" + id + "/events")) {
            assertThat(frank.get(path).status()).as(path).isEqualTo(404);
        }
        assertThat(frank.post("/api/v1/jobs/" + id + "/cancel", null).status()).isEqualTo(404);
        assertThat(frank.get("/api/v1/jobs").json().get("items").size()).isZero();
        assertThat(erin.get("/api/v1/jobs/" + id).field("state")).isNotEqualTo("CANCELED");

        // only an identity the gateway signed admits: not none, not an API key, not a forged or foreign one
        assertThat(erin.as(null).get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(erin.as("fj_not-a-key").get("/api/v1/jobs").status()).isEqualTo(401);
        assertThat(erin.as(ADMIN_TOKEN).get("/api/v1/jobs").status()).isEqualTo(401);
        UUID erinId = tenants.byName("erin").orElseThrow().id();
        long expires = Instant.now().plusSeconds(30).getEpochSecond();
        assertThat(erin.withHeaders(Map.of("X-Jobs-Identity", erinId + ";erin;ADMIN;" + expires,
                "X-Jobs-Identity-Signature", "AAAA")).get("/api/v1/jobs").status()).isEqualTo(401);
        Api foreign = Api.withIdentity(port, "not-the-secret-of-this-service", erinId, "erin", CallerIdentity.Role.ADMIN);
        assertThat(foreign.get("/api/v1/jobs/" + id).status()).isEqualTo(401);
        assertThat(erin.post("/api/v1/admin/tenants", "{\"name\":\"mallory\"}").status()).isEqualTo(403);
        assertThat(erin.get("/api/v1/jobs/not-a-uuid").status()).isEqualTo(404);
        assertThat(erin.as(null).get("/actuator/health").status()).isEqualTo(200);
    }

    @Test
    void metricsCountSubmissionsTransitionsAndTheOutbox() {
        Api grace = newTenant("grace");
        String id = grace.post("/api/v1/jobs", spec("metered")).field("id");
        await().atMost(Duration.ofSeconds(20)).until(() -> "QUEUED".equals(grace.get("/api/v1/jobs/" + id).field("state")));
        assertThat(admin.get("/actuator/prometheus").status()).as("not on the main port").isEqualTo(404);
        String metrics = new Api(managementPort, null).get("/actuator/prometheus").body();
        assertThat(metrics).contains("jobs_submitted_total");
        assertThat(metrics).containsPattern("jobs_transitions_total\\{.*from=\"SUBMITTED\".*to=\"QUEUED\".*\\}");
        assertThat(metrics).contains("outbox_backlog").contains("outbox_lag_seconds");
    }

    @Test
    void anAdminRevokesAKeyAndItAuthenticatesNoMore() {
        newTenant("heidi");
        var issued = admin.post("/api/v1/admin/tenants/heidi/api-keys", "{}");
        assertThat(issued.status()).isEqualTo(201);
        String keyId = issued.field("id");
        assertThat(tenants.authenticate(issued.field("key"))).isPresent();

        assertThat(admin.delete("/api/v1/admin/tenants/heidi/api-keys/" + keyId).status()).isEqualTo(204);
        assertThat(tenants.authenticate(issued.field("key"))).isEmpty();
        assertThat(admin.delete("/api/v1/admin/tenants/heidi/api-keys/" + keyId).status()).isEqualTo(204);
        assertThat(admin.delete("/api/v1/admin/tenants/alice-none/api-keys/" + keyId).status()).isEqualTo(404);
        assertThat(admin.delete("/api/v1/admin/tenants/heidi/api-keys/" + UUID.randomUUID()).status()).isEqualTo(404);
        assertThat(admin.delete("/api/v1/admin/tenants/heidi/api-keys/not-a-uuid").status()).isEqualTo(404);

        newTenant("ivan");
        assertThat(admin.delete("/api/v1/admin/tenants/ivan/api-keys/" + keyId).status()).as("another tenant's key").isEqualTo(404);
        Api heidi = Api.withIdentity(port, SECRET, tenants.byName("heidi").orElseThrow().id(), "heidi", CallerIdentity.Role.USER);
        assertThat(heidi.delete("/api/v1/admin/tenants/heidi/api-keys/" + keyId).status()).isEqualTo(403);
    }
}
