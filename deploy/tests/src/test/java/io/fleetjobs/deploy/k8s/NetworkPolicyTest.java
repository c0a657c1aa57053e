package io.fleetjobs.deploy.k8s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetjobs.deploy.k8s.NetworkPolicies.Peer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each overlay's NetworkPolicies as {@code kubectl kustomize} renders them, evaluated for every pair of the rendered
 * pods on every port they listen on (and PostgreSQL's and Kafka's): a default deny, the fleet nodes' agents (and
 * the jobs they run) reaching the scheduler's agent port and DNS and nothing else, each service reached by exactly
 * the pods that call it, each reaching exactly what it uses, the management ports by Prometheus alone.
 */
class NetworkPolicyTest {
    private static final Set<String> AGENTS = Set.of("worker-agent", "worker-agent-gpu");
    /** Who calls each service's main port (the gateway's is public). */
    private static final Map<String, Set<String>> CALLERS = Map.of(
            "job-service", Set.of("api-gateway"),
            "scheduler-service", Set.of("api-gateway", "worker-agent", "worker-agent-gpu"),
            "reconciler-service", Set.of());
    /** What each pod of ours connects to ("postgres", "kafka": in the namespace in dev, outside in production). */
    private static final Map<String, Set<String>> USES = Map.of(
            "api-gateway", Set.of("job-service", "scheduler-service", "postgres"),
            "job-service", Set.of("postgres", "kafka"),
            "scheduler-service", Set.of("postgres", "kafka"),
            "reconciler-service", Set.of("postgres"),
            "db-migrations", Set.of("postgres"),
            "worker-agent", Set.of("scheduler-service"),
            "worker-agent-gpu", Set.of("scheduler-service"));
    private static final int POSTGRES_PORT = 5432;
    private static final int KAFKA_PORT = 9092;
    /** The production overlay's placeholder addresses of the external PostgreSQL and brokers (k8s/README.md). */
    private static final Peer EXTERNAL_POSTGRES = Peer.address("192.0.2.10");
    private static final Peer EXTERNAL_KAFKA = Peer.address("192.0.2.1");
    private static final Peer ELSEWHERE = Peer.address("203.0.113.7");
    private static final Peer KUBE_DNS = Peer.pod("kube-system", Map.of("k8s-app", "kube-dns"));
    private static final Peer PROMETHEUS = Peer.pod("monitoring", Map.of("app.kubernetes.io/name", "prometheus"));
    private static final Peer INGRESS_CONTROLLER = Peer.pod("ingress-nginx", Map.of("app.kubernetes.io/name", "ingress-nginx"));

    @BeforeAll
    static void kubectl() {
        assumeTrue(Rendered.kubectlAvailable(), "kubectl is not on the PATH");
    }

    static List<String> overlays() {
        return Overlays.names();
    }

    /** A rendered overlay's pods by name (their template labels, in its namespace) and the ports they listen on. */
    private record Pods(Map<String, Peer> byName, Map<String, Set<Integer>> ports, NetworkPolicies policies) {
        static Pods of(String overlay) {
            Rendered rendered = Rendered.render(overlay, Overlays.directory(overlay));
            Map<String, Peer> byName = new LinkedHashMap<>();
            Map<String, Set<Integer>> ports = new LinkedHashMap<>();
            for (Map<String, Object> workload : rendered.workloads()) {
                String name = Rendered.name(workload);
                byName.put(name, Peer.pod(Yamls.string(workload, "metadata", "namespace"),
                        Yamls.strings(workload, "spec", "template", "metadata", "labels")));
                Set<Integer> listening = new TreeSet<>();
                for (Map<String, Object> c : Yamls.maps(workload, "spec", "template", "spec", "containers")) {
                    Yamls.maps(c, "ports").forEach(p -> listening.add((Integer) p.get("containerPort")));
                }
                ports.put(name, listening);
            }
            return new Pods(byName, ports, new NetworkPolicies(rendered));
        }

        Set<Integer> everyPort() {
            Set<Integer> all = new TreeSet<>(List.of(POSTGRES_PORT, KAFKA_PORT, 443, 53));
            ports.values().forEach(all::addAll);
            return all;
        }
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void aDefaultDenyHoldsForEveryPodBothWays(String overlay) {
        Pods pods = Pods.of(overlay);
        List<Map<String, Object>> denials = pods.policies().all().stream()
                .filter(p -> Yamls.map(p, "spec", "podSelector").isEmpty())
                .filter(p -> Yamls.asList(Yamls.at(p, "spec", "policyTypes")).containsAll(List.of("Ingress", "Egress")))
                .filter(p -> Yamls.at(p, "spec", "ingress") == null && Yamls.at(p, "spec", "egress") == null)
                .toList();
        assertThat(denials).as("a policy selecting every pod, both ways, allowing nothing").hasSize(1);
        for (Peer pod : pods.byName().values()) {
            assertThat(pods.policies().selecting(pod, "Ingress")).as("ingress of %s isolated", pod).isNotEmpty();
            assertThat(pods.policies().selecting(pod, "Egress")).as("egress of %s isolated", pod).isNotEmpty();
            assertThat(pods.policies().egressAllows(pod, ELSEWHERE, 443)).as("%s to the internet", pod).isFalse();
        }
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void agentsAndTheirJobsReachOnlyTheSchedulersAgentPortAndDns(String overlay) {
        Pods pods = Pods.of(overlay);
        int agentPort = Modules.servicePorts().get("scheduler-service");
        assertThat(pods.byName()).containsKeys(AGENTS.toArray(String[]::new));
        for (String agent : AGENTS) {
            Peer from = pods.byName().get(agent);
            List<String> reached = new ArrayList<>();
            for (var target : pods.byName().entrySet()) {
                for (int port : pods.everyPort()) {
                    if (pods.policies().allows(from, target.getValue(), port)) {
                        reached.add(target.getKey() + ":" + port);
                    }
                }
            }
            assertThat(reached).as("what %s reaches in %s", agent, overlay).containsExactly("scheduler-service:" + agentPort);
            assertThat(pods.policies().egressAllows(from, KUBE_DNS, 53)).as("%s asks DNS", agent).isTrue();
            for (Peer outside : List.of(EXTERNAL_POSTGRES, EXTERNAL_KAFKA, ELSEWHERE)) {
                for (int port : pods.everyPort()) {
                    assertThat(pods.policies().egressAllows(from, outside, port)).as("%s to %s:%d", agent, outside, port)
                            .isFalse();
                }
            }
            // every egress rule of theirs names the scheduler on its agent port, or the cluster DNS on 53
            for (Map<String, Object> rule : pods.policies().rules(from, "Egress", "egress")) {
                List<Object> to = Yamls.asList(rule.get("to"));
                List<Object> ports = Yamls.maps(rule, "ports").stream().map(p -> p.get("port")).toList();
                assertThat(to).as("an egress rule of %s names its peers: %s", agent, rule).isNotEmpty();
                assertThat(ports).as("an egress rule of %s names its ports: %s", agent, rule).isNotEmpty()
                        .allMatch(p -> p.equals(agentPort) || p.equals(53));
                assertThat(Yamls.asList(rule.get("to")).stream().map(Yamls::asMap))
                        .as("peers of %s", agent).noneMatch(peer -> peer.containsKey("ipBlock"));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void eachServiceIsReachedFromExactlyThePodsThatCallIt(String overlay) {
        Pods pods = Pods.of(overlay);
        Map<String, Integer> main = Modules.servicePorts();
        Map<String, Integer> management = Modules.managementPorts();
        for (var called : CALLERS.entrySet()) {
            Peer service = pods.byName().get(called.getKey());
            Set<String> callers = new LinkedHashSet<>();
            for (var source : pods.byName().entrySet()) {
                if (pods.policies().allows(source.getValue(), service, main.get(called.getKey()))) {
                    callers.add(source.getKey());
                }
            }
            assertThat(callers).as("who reaches %s:%d in %s", called.getKey(), main.get(called.getKey()), overlay)
                    .containsExactlyInAnyOrderElementsOf(called.getValue());
            assertThat(pods.policies().ingressAllows(service, ELSEWHERE, main.get(called.getKey())))
                    .as("%s from outside the cluster", called.getKey()).isFalse();
        }
        // the gateway is the public entry: the Ingress controller (any namespace) reaches it; no agent does
        Peer gateway = pods.byName().get("api-gateway");
        assertThat(pods.policies().ingressAllows(gateway, INGRESS_CONTROLLER, main.get("api-gateway"))).isTrue();
        for (String agent : AGENTS) {
            assertThat(pods.policies().allows(pods.byName().get(agent), gateway, main.get("api-gateway"))).isFalse();
        }
        // the management ports: Prometheus, and no pod of the namespace
        for (var service : management.entrySet()) {
            Peer target = pods.byName().get(service.getKey());
            assertThat(pods.policies().ingressAllows(target, PROMETHEUS, service.getValue()))
                    .as("Prometheus scrapes %s:%d", service.getKey(), service.getValue()).isTrue();
            for (var source : pods.byName().entrySet()) {
                assertThat(pods.policies().allows(source.getValue(), target, service.getValue()))
                        .as("%s reaches %s's management port", source.getKey(), service.getKey()).isFalse();
            }
            assertThat(pods.policies().ingressAllows(target, INGRESS_CONTROLLER, service.getValue()))
                    .as("%s's management port from another namespace", service.getKey()).isFalse();
        }
    }

    @ParameterizedTest
    @MethodSource("overlays")
    void eachPodReachesExactlyWhatItUses(String overlay) {
        Pods pods = Pods.of(overlay);
        boolean inCluster = pods.byName().containsKey("postgres");
        assertThat(inCluster).as("PostgreSQL runs in the namespace in dev only").isEqualTo(overlay.equals("dev"));
        for (var user : USES.entrySet()) {
            Peer from = pods.byName().get(user.getKey());
            Set<String> reached = new TreeSet<>();
            for (var target : pods.byName().entrySet()) {
                for (int port : pods.ports().get(target.getKey())) {
                    if (pods.policies().allows(from, target.getValue(), port)) {
                        reached.add(target.getKey());
                    }
                }
            }
            if (!inCluster) {
                if (pods.policies().allows(from, EXTERNAL_POSTGRES, POSTGRES_PORT)) {
                    reached.add("postgres");
                }
                if (pods.policies().allows(from, EXTERNAL_KAFKA, KAFKA_PORT)) {
                    reached.add("kafka");
                }
            }
            assertThat(reached).as("what %s reaches in %s", user.getKey(), overlay)
                    .containsExactlyInAnyOrderElementsOf(user.getValue());
        }
    }

    @Test
    void aBrokenPolicyIsCaught() {
        // the evaluator itself: without the agents' own policy the default deny leaves them nothing (not even the
        // scheduler), and an egress rule without peers opens everything
        Pods pods = Pods.of("dev");
        Peer agent = pods.byName().get("worker-agent");
        Peer postgres = pods.byName().get("postgres");
        assertThat(pods.policies().egressAllows(agent, postgres, POSTGRES_PORT)).isFalse();
        Map<String, Object> agents = pods.policies().all().stream()
                .filter(p -> "worker-agent".equals(Rendered.name(p))).findFirst().orElseThrow();
        Yamls.asList(Yamls.at(agents, "spec", "egress")).add(new LinkedHashMap<>(Map.of("ports",
                List.of(Map.of("protocol", "TCP", "port", POSTGRES_PORT)))));
        assertThat(pods.policies().egressAllows(agent, postgres, POSTGRES_PORT)).as("an opened egress").isTrue();
        assertThat(pods.policies().allows(agent, postgres, POSTGRES_PORT)).as("postgres' own ingress still denies").isFalse();
        assertThat(NetworkPolicies.inCidr("192.0.2.10", "192.0.2.0/28")).isTrue();
        assertThat(NetworkPolicies.inCidr("192.0.2.17", "192.0.2.0/28")).isFalse();
    }
}
