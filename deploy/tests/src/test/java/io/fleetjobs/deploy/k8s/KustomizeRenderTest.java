package io.fleetjobs.deploy.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each overlay as {@code kubectl kustomize} renders it (offline), checked object by object against the
 * services' configuration. Skipped where kubectl is not installed; {@link KustomizeFilesTest} checks
 * the files without it.
 */
class KustomizeRenderTest {

    @BeforeAll
    static void kubectl() {
        assumeTrue(Rendered.kubectlAvailable(), "kubectl is not on the PATH");
    }

    static List<String> overlays() {
        return Overlays.names();
    }

    @Test
    void thereAreTheTwoOverlays() {
        assertThat(overlays()).contains("dev", "production");
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void overlayRendersWhatTheServicesNeed(String overlay) {
        Rendered rendered = Rendered.render(overlay, Overlays.directory(overlay));

        List<String> problems = new ManifestChecks(rendered, Overlays.expectations(overlay), Modules.servicePorts()).problems();

        assertThat(problems).as("k8s/overlays/" + overlay).isEmpty();
        assertThat(rendered.workloads()).extracting(Rendered::describe).contains(
                "Deployment/api-gateway", "Deployment/job-service", "Deployment/scheduler-service",
                "Deployment/reconciler-service", "DaemonSet/worker-agent", "DaemonSet/worker-agent-gpu", "Job/db-migrations");
    }

    @Test
    void productionReferencesItsSecretsAndRendersNone() {
        Rendered rendered = Rendered.render("production", Overlays.directory("production"));

        assertThat(rendered.ofKind("Secret")).isEmpty();
        assertThat(rendered.ofKind("ServiceMonitor")).hasSize(1);
        assertThat(rendered.find("Deployment", "scheduler-service").map(d -> Yamls.at(d, "spec", "replicas"))).contains(3);
    }

    @Test
    void theServiceMonitorScrapesTheManagementPorts() {
        Rendered rendered = Rendered.render("production", Overlays.directory("production"));
        ManifestChecks checks = new ManifestChecks(rendered, Overlays.expectations("production"), Modules.servicePorts());
        assertThat(checks.problems()).isEmpty();

        Yamls.maps(rendered.ofKind("ServiceMonitor").getFirst(), "spec", "endpoints").getFirst().put("port", "http");

        assertThat(checks.problems()).as("scraping the main ports, where /actuator/prometheus is not")
                .anyMatch(p -> p.contains("scrapes Service/api-gateway on 8080, not its management port 9080"));
    }

    /** Each check catches the mismatch it is for: a broken copy of the dev render must be reported. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("breakages")
    void aBrokenRenderIsReported(String breakage, Consumer<Rendered> breakIt, String reported) {
        Rendered rendered = Rendered.render("dev", Overlays.directory("dev"));
        ManifestChecks checks = new ManifestChecks(rendered, Overlays.expectations("dev"), Modules.servicePorts());
        assertThat(checks.problems()).as("the dev overlay before breaking it").isEmpty();

        breakIt.accept(rendered);

        assertThat(checks.problems()).as(breakage).anyMatch(p -> p.contains(reported));
    }

    static Stream<Arguments> breakages() {
        return Stream.of(
                Arguments.of("container port moved", (Consumer<Rendered>) r -> container(r, "Deployment", "job-service")
                        .put("ports", List.of(Map.of("name", "http", "containerPort", 9081))),
                        "does not expose job-service's server.port 8081"),
                Arguments.of("ConfigMap key gone", (Consumer<Rendered>) r -> Yamls.map(r.ofKind("ConfigMap").stream()
                                .filter(c -> Rendered.name(c).startsWith("fleetjobs-config")).findFirst().orElseThrow(), "data")
                        .remove("JOBS_KAFKA_BOOTSTRAP_SERVERS"),
                        "takes key JOBS_KAFKA_BOOTSTRAP_SERVERS of ConfigMap/fleetjobs-config"),
                Arguments.of("one scheduler", (Consumer<Rendered>) r -> Yamls.map(
                        r.find("Deployment", "scheduler-service").orElseThrow(), "spec").put("replicas", 1),
                        "Deployment/scheduler-service has 1 replicas"),
                Arguments.of("Service selector typo", (Consumer<Rendered>) r -> Yamls.map(
                        r.find("Service", "job-service").orElseThrow(), "spec").put("selector",
                                Map.of("app.kubernetes.io/name", "jobservice")),
                        "Service/job-service selects no pods"),
                Arguments.of("readiness on the wrong path", (Consumer<Rendered>) r -> Yamls.map(
                        container(r, "Deployment", "scheduler-service"), "readinessProbe", "httpGet").put("path", "/actuator/health"),
                        "readinessProbe is on /actuator/health, not /actuator/health/readiness"),
                Arguments.of("probe on another port", (Consumer<Rendered>) r -> Yamls.map(
                        container(r, "Deployment", "api-gateway"), "livenessProbe", "httpGet").put("port", 8081),
                        "livenessProbe is on port 8081, not 8080"),
                Arguments.of("no GPU asked for", (Consumer<Rendered>) r -> Yamls.map(
                        container(r, "DaemonSet", "worker-agent-gpu"), "resources", "limits").remove("nvidia.com/gpu"),
                        "does not ask for nvidia.com/gpu"),
                Arguments.of("image without the overlay's tag", (Consumer<Rendered>) r -> container(r, "Deployment", "reconciler-service")
                        .put("image", "fleetjobs/reconciler-service:latest"),
                        "not the overlay's tag 0.1.0-SNAPSHOT"),
                Arguments.of("a setting no service reads", (Consumer<Rendered>) r -> Yamls.maps(
                        container(r, "Deployment", "reconciler-service"), "env").getFirst().put("name", "JOBS_DB_UR"),
                        "sets JOBS_DB_UR, which reconciler-service does not read"),
                Arguments.of("writable root", (Consumer<Rendered>) r -> Yamls.map(
                        container(r, "Deployment", "job-service"), "securityContext").put("readOnlyRootFilesystem", false),
                        "container job-service has a writable root file system"),
                Arguments.of("no memory limit", (Consumer<Rendered>) r -> Yamls.map(
                        container(r, "Job", "db-migrations"), "resources", "limits").remove("memory"),
                        "container db-migrations has no limits.memory"),
                Arguments.of("agents on the same nodes", (Consumer<Rendered>) r -> Yamls.map(
                        r.find("DaemonSet", "worker-agent-gpu").orElseThrow(), "spec", "template", "spec")
                        .put("nodeSelector", Map.of("fleetjobs.io/worker", "cpu")),
                        "the CPU and GPU agents may land on one node"),
                Arguments.of("join token in the agent's environment", (Consumer<Rendered>) r -> Yamls.asList(Yamls.at(
                        container(r, "DaemonSet", "worker-agent"), "env")).add(new java.util.LinkedHashMap<>(Map.of(
                                "name", "JOBS_WORKER_JOIN_TOKEN", "valueFrom", Map.of("secretKeyRef",
                                        Map.of("name", "fleetjobs-tokens", "key", "JOBS_AGENT_JOIN_TOKEN"))))),
                        "sets JOBS_WORKER_JOIN_TOKEN, which every job it runs inherits"),
                Arguments.of("management port missing", (Consumer<Rendered>) r -> container(r, "Deployment", "scheduler-service")
                        .put("ports", List.of(Map.of("name", "http", "containerPort", 8082))),
                        "does not expose scheduler-service's management.server.port 9082"),
                Arguments.of("a Service on a port of no service", (Consumer<Rendered>) r -> Yamls.maps(
                        r.find("Service", "reconciler-service").orElseThrow(), "spec", "ports").getLast().put("port", 9999),
                        "listens on 9999, not reconciler-service's server.port 8083 or management.server.port 9083"),
                Arguments.of("gateway routes to a port the Service lacks", (Consumer<Rendered>) r -> Yamls.maps(
                        r.find("Service", "scheduler-service").orElseThrow(), "spec", "ports").getFirst().put("port", 80),
                        "JOBS_SCHEDULER_URL is http://scheduler-service:8082: Service scheduler-service has no port 8082"));
    }

    private static Map<String, Object> container(Rendered rendered, String kind, String name) {
        return Yamls.maps(rendered.find(kind, name).orElseThrow(), "spec", "template", "spec", "containers").getFirst();
    }
}
