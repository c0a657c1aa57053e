package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.model.JobState;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.testsupport.Api;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.JsonNode;

/** A tenant's quota of live jobs as the admin sets it and as a submit over it is refused. */
class TenantQuotaApiTest extends JobServiceTestBase {
    @Autowired
    JdbcClient jdbc;
    @Autowired
    JobStore store;

    private Api tenantWithQuota(String name, int maxLiveJobs) {
        var created = admin.post("/api/v1/admin/tenants",
                "{\"name\": \"" + name + "\", \"weight\": 2, \"quota\": {\"gpuCount\": 4, \"maxLiveJobs\": " + maxLiveJobs + "}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("quota").get("maxLiveJobs").asInt()).isEqualTo(maxLiveJobs);
        return Api.withIdentity(port, SECRET, UUID.fromString(created.field("id")), name, CallerIdentity.Role.USER);
    }

    private long jobsOf(String tenant) {
        return jdbc.sql("select count(*) from jobs j join tenants t on t.id = j.tenant_id where t.name = :n")
                .param("n", tenant).query(Long.class).single();
    }

    @Test
    void aSubmitOverTheQuotaIs429WithTheReasonAndWritesNothingButARepeatedKeyAnswers() {
        Api carol = tenantWithQuota("quota-carol", 2);
        var first = carol.post("/api/v1/jobs", spec("one"), Map.of("Idempotency-Key", "k-1"));
        assertThat(first.status()).isEqualTo(201);
        assertThat(carol.post("/api/v1/jobs", spec("two")).status()).isEqualTo(201);

        var refused = carol.post("/api/v1/jobs", spec("three"), Map.of("Idempotency-Key", "k-3"));
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.retryAfter()).isEqualTo("10");
        assertThat(refused.json().get("detail").asString())
                .isEqualTo("tenant quota-carol has 2 live jobs, its quota maxLiveJobs is 2");
        assertThat(jobsOf("quota-carol")).isEqualTo(2);

        var again = carol.post("/api/v1/jobs", spec("one"), Map.of("Idempotency-Key", "k-1"));
        assertThat(again.status()).as("the same key and body at the quota: the same job").isEqualTo(200);
        assertThat(again.field("id")).isEqualTo(first.field("id"));

        assertThat(carol.post("/api/v1/jobs/" + first.field("id") + "/cancel", null).status()).isEqualTo(202);
        assertThat(carol.post("/api/v1/jobs", spec("three"), Map.of("Idempotency-Key", "k-3")).status())
                .as("a job that ended frees its place").isEqualTo(201);
    }

    @Test
    void aTenantsJobsTakeAtMostThePriorityItsQuotaAllowsAndAPriorityOverItIs400NamingTheField() {
        var created = admin.post("/api/v1/admin/tenants", "{\"name\": \"quota-prio\", \"quota\": {\"maxPriority\": 600}}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("quota").get("maxPriority").asInt()).isEqualTo(600);
        Api prio = Api.withIdentity(port, SECRET, UUID.fromString(created.field("id")), "quota-prio", CallerIdentity.Role.USER);

        var refused = prio.post("/api/v1/jobs", spec("urgent").replaceFirst("\\{", "{\"priority\": 601, "));
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.json().get("errors").get(0).get("field").asString()).isEqualTo("priority");
        assertThat(refused.json().get("errors").get(0).get("message").asString())
                .isEqualTo("must be at most 600, the quota maxPriority of tenant quota-prio");
        assertThat(jobsOf("quota-prio")).as("nothing written").isZero();
        assertThat(prio.post("/api/v1/jobs", spec("at-the-cap").replaceFirst("\\{", "{\"priority\": 600, ")).status())
                .isEqualTo(201);
        assertThat(prio.post("/api/v1/jobs", spec("default")).status()).as("500 by default").isEqualTo(201);

        var bad = admin.patch("/api/v1/admin/tenants/quota-prio", "{\"quota\": {\"maxPriority\": 1001}}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("errors").get(0).get("field").asString()).isEqualTo("quota.maxPriority");
        assertThat(admin.patch("/api/v1/admin/tenants/quota-prio", "{\"quota\": {}}").status()).isEqualTo(200);
        assertThat(prio.post("/api/v1/jobs", spec("urgent").replaceFirst("\\{", "{\"priority\": 1000, ")).status())
                .as("a quota without it: any priority").isEqualTo(201);
    }

    @Test
    void anAdminListsReadsAndChangesTenantsAndTheirQuota() {
        tenantWithQuota("quota-dora", 1);
        var listed = admin.get("/api/v1/admin/tenants");
        assertThat(listed.status()).isEqualTo(200);
        assertThat(StreamSupport.stream(listed.json().get("items").spliterator(), false)
                .map(t -> t.get("name").asString())).contains("quota-dora", "admin");

        var read = admin.get("/api/v1/admin/tenants/quota-dora");
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.json().get("weight").asInt()).isEqualTo(2);
        assertThat(read.json().get("quota").get("gpuCount").asInt()).isEqualTo(4);

        var weighted = admin.patch("/api/v1/admin/tenants/quota-dora", "{\"weight\": 5}");
        assertThat(weighted.status()).as(weighted.body()).isEqualTo(200);
        assertThat(weighted.json().get("weight").asInt()).isEqualTo(5);
        assertThat(weighted.json().get("quota").get("maxLiveJobs").asInt()).as("a quota left out is kept").isEqualTo(1);

        var raised = admin.patch("/api/v1/admin/tenants/quota-dora", "{\"quota\": {\"maxLiveJobs\": 50}}");
        assertThat(raised.json().get("quota").get("maxLiveJobs").asInt()).isEqualTo(50);
        var gpus = raised.json().get("quota").path("gpuCount");
        assertThat(gpus.isNull() || gpus.isMissingNode()).as("a quota given replaces the old one whole").isTrue();
        assertThat(admin.get("/api/v1/admin/tenants/quota-dora").json().get("weight").asInt()).isEqualTo(5);

        var bad = admin.patch("/api/v1/admin/tenants/quota-dora", "{\"quota\": {\"maxLiveJobs\": -1}}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().get("errors").get(0).get("field").asString()).isEqualTo("quota.maxLiveJobs");
        assertThat(admin.post("/api/v1/admin/tenants", "{\"name\": \"quota-eve\", \"quota\": {\"maxLiveJobs\": -3}}")
                .json().get("errors").get(0).get("field").asString()).isEqualTo("quota.maxLiveJobs");
        // Jackson's lenient coercions read "" as "leave it" (200, nothing changed, or a quota dropped whole) and 0 as false
        for (String[] wrong : new String[][] {{"{\"weight\": \"\"}", "weight"}, {"{\"quota\": {\"cpu\": \"\"}}", "quota.cpu"},
                {"{\"allowPrivateWebhooks\": 0}", "allowPrivateWebhooks"}, {"{\"allowPrivateWebhooks\": \"\"}", "allowPrivateWebhooks"}}) {
            var refused = admin.patch("/api/v1/admin/tenants/quota-dora", wrong[0]);
            assertThat(refused.status()).as(wrong[0]).isEqualTo(400);
            assertThat(refused.json().get("errors").get(0).get("field").asString()).as(wrong[0]).isEqualTo(wrong[1]);
        }
        assertThat(admin.get("/api/v1/admin/tenants/quota-dora").json().get("quota").get("maxLiveJobs").asInt())
                .as("a refused change changes nothing").isEqualTo(50);
        assertThat(admin.get("/api/v1/admin/tenants/nobody").status()).isEqualTo(404);
        assertThat(admin.patch("/api/v1/admin/tenants/nobody", "{\"weight\": 2}").status()).isEqualTo(404);

        Api user = Api.withIdentity(port, SECRET, UUID.randomUUID(), "quota-dora", CallerIdentity.Role.USER);
        assertThat(user.get("/api/v1/admin/tenants").status()).isEqualTo(403);
        assertThat(user.patch("/api/v1/admin/tenants/quota-dora", "{\"weight\": 9}").status()).isEqualTo(403);
    }

    @Test
    void aTenantSeesItsQuotaAndWhatItsJobsHoldAndAnAdminSeesEveryTenants() {
        Api fay = tenantWithQuota("usage-fay", 10);
        Api gus = newTenant("usage-gus");
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(UUID.fromString(fay.post("/api/v1/jobs", spec("held-" + i)).field("id")));
        }
        gus.post("/api/v1/jobs", spec("queued-only"));
        ids.forEach(id -> await().atMost(Duration.ofSeconds(30))
                .until(() -> store.get(id).orElseThrow().state() == JobState.QUEUED));
        move(store, ids.get(0), JobState.SCHEDULED);
        move(store, ids.get(1), JobState.SCHEDULED);
        move(store, ids.get(1), JobState.RUNNING); // the third stays QUEUED: it holds nothing

        var own = fay.get("/api/v1/tenant");
        assertThat(own.status()).as(own.body()).isEqualTo(200);
        assertThat(own.json().get("name").asString()).isEqualTo("usage-fay");
        assertThat(own.json().get("quota").get("gpuCount").asInt()).isEqualTo(4);
        JsonNode usage = own.json().get("usage");
        assertThat(usage.get("cpu").decimalValue()).isEqualByComparingTo("1");
        assertThat(usage.get("memoryMb").asLong()).isEqualTo(512);
        assertThat(usage.get("gpuCount").asInt()).isZero();
        assertThat(usage.get("jobs").asLong()).isEqualTo(2);
        assertThat(gus.get("/api/v1/tenant").json().get("usage").get("jobs").asLong()).as("its own, not fay's").isZero();

        var listed = admin.get("/api/v1/admin/tenants").json().get("items");
        JsonNode fayListed = StreamSupport.stream(listed.spliterator(), false)
                .filter(t -> t.get("name").asString().equals("usage-fay")).findFirst().orElseThrow();
        assertThat(fayListed.get("usage")).isEqualTo(usage);
        assertThat(admin.get("/api/v1/admin/tenants/usage-fay").json().get("usage")).isEqualTo(usage);
    }
}
