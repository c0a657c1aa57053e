package io.fleetjobs.jobctl;

import static io.fleetjobs.sdk.testing.StubApi.Answer.ok;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.sdk.testing.StubApi;
import io.fleetjobs.sdk.testing.StubApi.Answer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code jobctl admin tenants …} and {@code jobctl admin keys …} against a stub of the API: what they send and print. */
class AdminCommandsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TENANT = """
            {"id":"0190c0de-0000-7000-8000-00000000000a","name":"vision","weight":3,
             "quota":{"cpu":8,"memoryMb":32768,"gpuCount":2,"maxLiveJobs":null},"allowPrivateWebhooks":false}""";
    private final StubApi api = new StubApi();

    @AfterEach
    void stop() {
        api.close();
    }

    record Run(int code, String out, String err) {
    }

    private Run jobctl(String... args) {
        List<String> all = new ArrayList<>(List.of("--url", api.url(), "--token", "fj_admin"));
        all.addAll(List.of(args));
        CommandLine cmd = JobCtl.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(all.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void tenantsAreListedAndShownAsATableOrAsTheApisJson() {
        api.on("GET", "/api/v1/admin/tenants", ok("{\"items\":[" + TENANT + ",{\"id\":\"0190c0de-0000-7000-8000-00000000000b\","
                + "\"name\":\"nlp\",\"weight\":1}]}"));
        Run list = jobctl("admin", "tenants", "list");
        assertThat(list.code()).as(list.err()).isZero();
        List<String> lines = list.out().lines().toList();
        assertThat(lines.getFirst()).startsWith("NAME").contains("WEIGHT", "CPU", "MEMORY_MB", "GPUS", "MAX_LIVE_JOBS", "MAX_PRIORITY");
        assertThat(lines.get(1)).startsWith("vision").contains("3", "8", "32768", "2");
        assertThat(lines.get(2)).startsWith("nlp").contains("1");
        assertThat(api.calls().getFirst().header("Authorization")).isEqualTo("Bearer fj_admin");

        api.on("GET", "/api/v1/admin/tenants/vision", ok(TENANT));
        Run get = jobctl("admin", "tenants", "get", "vision", "-o", "json");
        assertThat(get.code()).isZero();
        assertThat(JSON.readTree(get.out()).path("weight").asInt()).isEqualTo(3);

        Run missing = jobctl("admin", "tenants", "get", "nobody");
        assertThat(missing.code()).isEqualTo(JobCtl.NOT_FOUND);
    }

    @Test
    void updateSendsOnlyWhatIsGivenAndAQuotaWhole() {
        api.on("PATCH", "/api/v1/admin/tenants/vision", ok(TENANT));
        Run weight = jobctl("admin", "tenants", "update", "vision", "--weight", "3");
        assertThat(weight.code()).as(weight.err()).isZero();
        assertThat(weight.out()).contains("vision");
        JsonNode sent = JSON.readTree(api.calls("PATCH", "/api/v1/admin/tenants/vision").getLast().body());
        assertThat(sent.path("weight").asInt()).isEqualTo(3);
        assertThat(sent.has("quota") && !sent.get("quota").isNull()).as("no quota option: the quota stays").isFalse();

        Run quota = jobctl("admin", "tenants", "update", "vision", "--cpu", "8", "--gpus", "2", "--max-live-jobs", "100",
                "--max-priority", "600");
        assertThat(quota.code()).as(quota.err()).isZero();
        sent = JSON.readTree(api.calls("PATCH", "/api/v1/admin/tenants/vision").getLast().body());
        assertThat(sent.path("quota").path("cpu").asInt()).isEqualTo(8);
        assertThat(sent.path("quota").path("gpuCount").asInt()).isEqualTo(2);
        assertThat(sent.path("quota").path("maxLiveJobs").asInt()).isEqualTo(100);
        assertThat(sent.path("quota").path("maxPriority").asInt()).isEqualTo(600);
        assertThat(sent.path("weight").isMissingNode() || sent.path("weight").isNull()).isTrue();

        Run clear = jobctl("admin", "tenants", "update", "vision", "--no-quota");
        assertThat(clear.code()).isZero();
        sent = JSON.readTree(api.calls("PATCH", "/api/v1/admin/tenants/vision").getLast().body());
        assertThat(sent.path("quota").isObject()).as("an empty quota: unlimited").isTrue();

        int calls = api.calls().size();
        assertThat(jobctl("admin", "tenants", "update", "vision").code()).as("nothing to change").isEqualTo(JobCtl.USAGE);
        assertThat(jobctl("admin", "tenants", "update", "vision", "--no-quota", "--cpu", "1").code()).isEqualTo(JobCtl.USAGE);
        assertThat(api.calls()).as("refused before asking").hasSize(calls);

        api.on("PATCH", "/api/v1/admin/tenants/vision", Answer.json(400, """
                {"type":"about:blank","title":"Bad Request","status":400,"detail":"the request is not valid",
                 "errors":[{"field":"weight","message":"must be less than or equal to 1000"}]}"""));
        Run refused = jobctl("admin", "tenants", "update", "vision", "--weight", "5000");
        assertThat(refused.code()).isEqualTo(JobCtl.USAGE);
        assertThat(refused.err()).contains("weight: must be less than or equal to 1000");
    }

    @Test
    void keysAreListedIssuedAndRevoked() {
        UUID key = UUID.randomUUID();
        UUID revoked = UUID.randomUUID();
        api.on("GET", "/api/v1/admin/tenants/vision/api-keys", ok("""
                {"items":[{"id":"%s","role":"USER","createdAt":"2026-03-01T10:00:00Z","lastUsedAt":"2026-03-02T09:00:00Z",
                           "revoked":false,"revokedAt":null,"bootstrap":false},
                          {"id":"%s","role":"USER","createdAt":"2026-03-01T11:00:00Z","lastUsedAt":null,
                           "revoked":true,"revokedAt":"2026-03-01T12:00:00Z","bootstrap":false}]}""".formatted(key, revoked)));
        Run list = jobctl("admin", "keys", "list", "vision");
        assertThat(list.code()).as(list.err()).isZero();
        List<String> lines = list.out().lines().toList();
        assertThat(lines.getFirst()).startsWith("ID").contains("ROLE", "CREATED", "LAST_USED", "REVOKED");
        assertThat(lines.get(1)).startsWith(key.toString()).contains("2026-03-02T09:00Z").endsWith("-");
        assertThat(lines.get(2)).startsWith(revoked.toString()).contains("2026-03-01T12:00Z");

        api.on("POST", "/api/v1/admin/tenants/vision/api-keys", Answer.json(201, "{\"id\":\"" + key + "\",\"key\":\"fj_secret\"}"));
        Run issued = jobctl("admin", "keys", "issue", "vision");
        assertThat(issued.code()).as(issued.err()).isZero();
        assertThat(issued.out()).contains("id:  " + key, "key: fj_secret");
        assertThat(api.calls("POST", "/api/v1/admin/tenants/vision/api-keys").getFirst().body()).isEqualTo("{}");

        api.on("DELETE", "/api/v1/admin/tenants/vision/api-keys/" + key, new Answer(204, "application/json", ""));
        Run revoke = jobctl("admin", "keys", "revoke", "vision", key.toString());
        assertThat(revoke.code()).as(revoke.err()).isZero();
        assertThat(revoke.out()).contains("revoked");
        assertThat(api.calls("DELETE", "/api/v1/admin/tenants/vision/api-keys/" + key)).hasSize(1);
        assertThat(jobctl("admin", "keys", "revoke", "vision", "not-a-uuid").code()).isEqualTo(JobCtl.NOT_FOUND);
        assertThat(jobctl("admin", "keys", "revoke", "vision", UUID.randomUUID().toString()).code())
                .as("the stub knows no such key: 404").isEqualTo(JobCtl.NOT_FOUND);
    }
}
