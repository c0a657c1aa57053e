package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every metric the Grafana dashboards ({@code deploy/grafana/dashboards/*.json}) and the alert rules
 * ({@code deploy/prometheus/alerts.yml}) name is exposed by some service at {@code /actuator/prometheus}, once
 * the platform has run a few jobs (some meters register at their first use): a dashboard naming a metric nobody
 * exposes fails here, not as an empty panel in production.
 */
class MetricsExposedTest {
    /** What Prometheus itself writes, not a service. */
    private static final Set<String> FROM_PROMETHEUS = Set.of("up", "scrape_duration_seconds", "scrape_samples_scraped",
            "ALERTS", "ALERTS_FOR_STATE");
    private static final Path DASHBOARDS = Path.of("..", "deploy", "grafana", "dashboards");
    private static final Path ALERTS = Path.of("..", "deploy", "prometheus", "alerts.yml");

    private static Platform platform;
    private static Api user;

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of("jobs.reconciler.metrics-interval", "1s"));
        user = platform.tenant("metrics");
        platform.agent("metrics-machine-1", platform.schedulerPort());
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() -> {
            var machines = platform.admin.get("/api/v1/machines");
            return machines.status() == 200 && machines.body().contains("metrics-machine-1");
        });
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    private static String submit(String json) {
        var created = user.post("/api/v1/jobs", json);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.field("id");
    }

    private static void awaitState(String id, String state) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
                .until(() -> state.equals(user.get("/api/v1/jobs/" + id).field("state")));
    }

    /** Each service's exposed metric names. */
    private static Map<String, Set<String>> scrape() {
        Map<String, Integer> ports = new LinkedHashMap<>();
        // the actuator's own ports: /actuator/prometheus is not on the services' main ports (GatewaySecurityTest)
        ports.put("api-gateway", platform.gatewayManagementPort());
        ports.put("job-service", platform.jobServiceManagementPort());
        ports.put("scheduler-service", platform.schedulerManagementPort());
        ports.put("reconciler-service", platform.reconcilerManagementPort());
        Map<String, Set<String>> exposed = new LinkedHashMap<>();
        ports.forEach((service, port) -> {
            var page = new Api(port, null).get("/actuator/prometheus");
            assertThat(page.status()).as(service + " /actuator/prometheus").isEqualTo(200);
            exposed.put(service, PromQl.exposed(page.body()));
        });
        return exposed;
    }

    /** Metric name → the files whose expressions name it. */
    private static Map<String, Set<String>> namedByDashboardsAndAlerts() throws IOException {
        Map<String, Set<String>> named = new TreeMap<>();
        List<Path> dashboards;
        try (Stream<Path> files = Files.list(DASHBOARDS)) {
            dashboards = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(dashboards).as("dashboards in " + DASHBOARDS).hasSizeGreaterThanOrEqualTo(6);
        JsonMapper json = JsonMapper.builder().build();
        for (Path file : dashboards) {
            List<String> exprs = PromQl.dashboardExpressions(json.readTree(file.toFile()));
            assertThat(exprs).as(file + " has queries").isNotEmpty();
            exprs.forEach(e -> PromQl.metricNames(e)
                    .forEach(n -> named.computeIfAbsent(n, k -> new TreeSet<>()).add(file.getFileName().toString())));
        }
        for (String expr : alertExpressions()) {
            PromQl.metricNames(expr).forEach(n -> named.computeIfAbsent(n, k -> new TreeSet<>()).add("alerts.yml"));
        }
        return named;
    }

    @SuppressWarnings("unchecked")
    private static List<String> alertExpressions() throws IOException {
        Map<String, Object> rules = new Yaml().load(Files.readString(ALERTS));
        List<String> exprs = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) rules.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                assertThat(rule).as("rule " + rule.get("alert")).containsKeys("alert", "expr", "labels", "annotations");
                assertThat((Map<String, Object>) rule.get("labels")).as(rule.get("alert") + " severity").containsKey("severity");
                assertThat((Map<String, Object>) rule.get("annotations")).as(rule.get("alert") + " text")
                        .containsKeys("summary", "description");
                exprs.add(rule.get("expr").toString());
            }
        }
        assertThat(exprs).isNotEmpty();
        return exprs;
    }

    @Test
    void everyMetricTheDashboardsAndAlertsNameIsExposedBySomeService() throws IOException {
        String ok = submit("""
                {"name": "ok", "resources": {"cpu": 0.25, "memoryMb": 32}, "execution": {"command": ["true"]}}""");
        String flaky = submit("""
                {"name": "flaky", "resources": {"cpu": 0.25, "memoryMb": 32}, "execution": {"command": ["sh", "-c", "exit 3"]},
                 "retry": {"maxAttempts": 2, "retryOnExitCodes": [3], "backoffSeconds": 0, "maxBackoffSeconds": 0}}""");
        submit("""
                {"name": "never", "resources": {"cpu": 0.25, "memoryMb": 32, "gpuCount": 1, "gpuType": "H100"},
                 "execution": {"command": ["true"]}}""");
        awaitState(ok, "SUCCEEDED");
        awaitState(flaky, "FAILED");

        Map<String, Set<String>> named = namedByDashboardsAndAlerts();
        named.keySet().removeAll(FROM_PROMETHEUS);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            Map<String, Set<String>> exposed = scrape();
            Set<String> all = new TreeSet<>();
            exposed.values().forEach(all::addAll);
            Map<String, Set<String>> missing = new TreeMap<>(named);
            missing.keySet().removeAll(all);
            assertThat(missing).as("metrics named in dashboards/alerts (metric → where) that no service exposes").isEmpty();
            // the fleet and queue gauges come from one service only, so that scheduler replicas never double-count them
            named.keySet().stream().filter(n -> n.startsWith("fleet_")).forEach(n -> assertThat(exposed)
                    .allSatisfy((service, names) -> assertThat(names.contains(n)).as(n + " in " + service)
                            .isEqualTo(service.equals("reconciler-service"))));
        });
    }

    @Test
    void everyPanelQueriesThePrometheusDataSource() throws IOException {
        JsonMapper json = JsonMapper.builder().build();
        try (Stream<Path> files = Files.list(DASHBOARDS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                JsonNode dashboard = json.readTree(file.toFile());
                assertThat(dashboard.path("uid").asString()).as(file + " uid").isNotBlank();
                for (JsonNode panel : dashboard.path("panels")) {
                    assertThat(panel.path("datasource").path("uid").asString()).as(file + ": " + panel.path("title"))
                            .isEqualTo("prometheus");
                    assertThat(panel.path("targets").size()).as(file + ": " + panel.path("title") + " targets").isPositive();
                }
            }
        }
    }
}
