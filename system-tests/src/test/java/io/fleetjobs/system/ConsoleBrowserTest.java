package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetjobs.testsupport.Api;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The web console in a real browser against a real platform: Debian's Chromium ({@code /usr/bin/chromium}, or
 * {@code CONSOLE_CHROMIUM}), driven by playwright-core from web-console's node_modules, runs
 * {@code src/test/browser/console-scenarios.mjs}. What the browser did is checked again through the API. Screenshots
 * of every page it visited are in {@code target/console-screenshots/}. Without Chromium or Node.js it is skipped.
 */
class ConsoleBrowserTest {
    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CONSOLE_CHROMIUM", "/usr/bin/chromium"));
    private static final Path WEB_CONSOLE = Path.of("..", "web-console").toAbsolutePath().normalize();
    private static final Path SCRIPT = Path.of("src", "test", "browser", "console-scenarios.mjs").toAbsolutePath();
    private static final List<String> SCENARIOS = List.of("sign in with a key", "the form shows the API's field errors",
            "submit a job in the form and see it SUCCEEDED, with its logs", "the jobs list, filtered by label",
            "a job that fits nowhere is under why pending, with its reason", "follow a running job's output live, then cancel it", "the overview",
            "the tenant's changes live on the events page",
            "readable on a phone's width", "another tenant sees none of the first tenant's jobs",
            "as an admin, drain a machine", "as an admin, issue and revoke a key", "as an admin, the overview with the fleet");

    private static Platform platform;

    @BeforeAll
    static void start() {
        assumeTrue(Files.isExecutable(CHROMIUM), "Chromium is not installed at " + CHROMIUM
                + " (apt-get install chromium): the console's browser test is skipped");
        assumeTrue(nodeWorks(), "node is not on the PATH: the console's browser test is skipped");
        assumeTrue(Files.isDirectory(WEB_CONSOLE.resolve("node_modules/playwright-core")),
                "web-console/node_modules has no playwright-core (build web-console first): the browser test is skipped");
        platform = new Platform(Map.of());
        platform.agent("console-machine-1", platform.schedulerPort());
        platform.agent("console-machine-2", platform.schedulerPort());
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            JsonNode items = platform.admin.get("/api/v1/machines").json().get("items");
            return items != null && StreamSupport.stream(items.spliterator(), false)
                    .filter(m -> "READY".equals(m.get("status").asString())).count() == 2;
        });
    }

    @AfterAll
    static void stop() {
        if (platform != null) {
            platform.close();
        }
    }

    @Test
    void theConsoleDoesWhatItsPagesSay() throws Exception {
        String userKey = key("console-a");
        String otherKey = key("console-b");
        Path work = Files.createDirectories(Path.of("target", "console-browser").toAbsolutePath());
        Path screenshots = Path.of("target", "console-screenshots").toAbsolutePath();
        Path log = work.resolve("scenarios.log");

        ProcessBuilder builder = new ProcessBuilder("node", SCRIPT.toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(Map.of(
                "CONSOLE_BASE_URL", platform.clientUrl(), "CONSOLE_USER_KEY", userKey, "CONSOLE_OTHER_KEY", otherKey,
                "CONSOLE_ADMIN_KEY", Platform.ADMIN_TOKEN, "CONSOLE_USER_TENANT", "console-a",
                "CONSOLE_DRAIN_MACHINE", "console-machine-2", "CONSOLE_SCREENSHOTS", screenshots.toString(),
                "CONSOLE_NODE_MODULES_OF", WEB_CONSOLE.toString(), "CONSOLE_WORK_DIR", work.toString(),
                "CONSOLE_CHROMIUM", CHROMIUM.toString()));
        Process node = builder.start();
        boolean ended = node.waitFor(5, TimeUnit.MINUTES);
        if (!ended) {
            node.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(ended).as("the scenarios ended within 5 minutes:%n%s", output).isTrue();
        assertThat(node.exitValue()).as("the scenarios (screenshots in %s):%n%s", screenshots, output).isZero();
        for (String scenario : SCENARIOS) {
            assertThat(output).as(output).contains("ok " + scenario + " (");
        }

        JsonNode results = JsonMapper.builder().build().readTree(output.lines().filter(l -> l.startsWith("RESULT "))
                .findFirst().orElseThrow().substring(7));
        Api user = platform.admin.as(userKey);
        assertThat(user.get("/api/v1/jobs/" + results.get("succeeded").asString()).field("state")).isEqualTo("SUCCEEDED");
        assertThat(user.get("/api/v1/jobs/" + results.get("canceled").asString()).field("state")).isEqualTo("CANCELED");
        JsonNode pending = user.get("/api/v1/jobs/" + results.get("pending").asString()).json();
        assertThat(pending.get("state").asString()).isEqualTo("QUEUED");
        assertThat(pending.get("stateReason").asString()).isEqualTo(results.get("pendingReason").asString());
        assertThat(platform.admin.as(otherKey).get("/api/v1/jobs/" + results.get("succeeded").asString()).status())
                .isEqualTo(404);
        JsonNode drained = StreamSupport.stream(platform.admin.get("/api/v1/machines").json().get("items").spliterator(), false)
                .filter(m -> "console-machine-2".equals(m.get("id").asString())).findFirst().orElseThrow();
        assertThat(drained.get("status").asString()).isEqualTo("DRAINING");
        assertThat(results.get("revokedKey").asBoolean()).isTrue();
        for (String page : List.of("01-login", "03-job-succeeded", "05-why-pending", "10-machines", "11-tenants")) {
            assertThat(screenshots.resolve(page + ".png")).isNotEmptyFile();
        }
    }

    private static String key(String tenant) {
        var created = platform.admin.post("/api/v1/admin/tenants", "{\"name\":\"" + tenant + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return platform.admin.post("/api/v1/admin/tenants/" + tenant + "/api-keys", "{}").field("key");
    }

    private static boolean nodeWorks() {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
