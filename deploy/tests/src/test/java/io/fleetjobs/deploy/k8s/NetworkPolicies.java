package io.fleetjobs.deploy.k8s;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The rendered NetworkPolicies, evaluated as Kubernetes does: a pod selected by a policy of a direction is isolated
 * in that direction and reaches (or is reached) only as some rule of those policies allows; a connection needs the
 * source's egress and the destination's ingress. Peers: {@code podSelector} (in the policy's namespace),
 * {@code namespaceSelector} (with {@code podSelector}: both), {@code ipBlock}; ports by number.
 */
final class NetworkPolicies {
    /** A pod, of a namespace (labels {@code kubernetes.io/metadata.name}), or an address outside the cluster. */
    record Peer(String namespace, Map<String, String> labels, String ip) {
        static Peer pod(String namespace, Map<String, String> labels) {
            return new Peer(namespace, labels, null);
        }

        static Peer address(String ip) {
            return new Peer(null, Map.of(), ip);
        }

        Map<String, String> namespaceLabels() {
            return namespace == null ? Map.of() : Map.of("kubernetes.io/metadata.name", namespace);
        }

        @Override
        public String toString() {
            return ip != null ? ip : namespace + "/" + labels.getOrDefault("app.kubernetes.io/name", labels.toString());
        }
    }

    private final List<Map<String, Object>> policies;

    NetworkPolicies(Rendered rendered) {
        this.policies = rendered.ofKind("NetworkPolicy");
    }

    List<Map<String, Object>> all() {
        return policies;
    }

    /** Whether {@code from} may open a connection to {@code to} on TCP {@code port}. */
    boolean allows(Peer from, Peer to, int port) {
        return egressAllows(from, to, port) && ingressAllows(to, from, port);
    }

    boolean egressAllows(Peer from, Peer to, int port) {
        if (from.ip() != null) {
            return true; // outside the cluster: no policy of ours applies to it
        }
        return allowed(from, "Egress", "egress", "to", to, port);
    }

    boolean ingressAllows(Peer to, Peer from, int port) {
        if (to.ip() != null) {
            return true;
        }
        return allowed(to, "Ingress", "ingress", "from", from, port);
    }

    /** The rules of {@code direction} ("egress", "ingress") of the policies that select the pod. */
    List<Map<String, Object>> rules(Peer pod, String type, String direction) {
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> policy : selecting(pod, type)) {
            rules.addAll(Yamls.maps(policy, "spec", direction));
        }
        return rules;
    }

    /** The policies of this type that select the pod. */
    List<Map<String, Object>> selecting(Peer pod, String type) {
        return policies.stream()
                .filter(p -> Objects.equals(Yamls.string(p, "metadata", "namespace"), pod.namespace()))
                .filter(p -> selects(Yamls.map(p, "spec", "podSelector"), pod.labels()))
                .filter(p -> types(p).contains(type))
                .toList();
    }

    private boolean allowed(Peer pod, String type, String direction, String peersKey, Peer other, int port) {
        List<Map<String, Object>> isolating = selecting(pod, type);
        if (isolating.isEmpty()) {
            return true;
        }
        for (Map<String, Object> policy : isolating) {
            String namespace = Yamls.string(policy, "metadata", "namespace");
            for (Map<String, Object> rule : Yamls.maps(policy, "spec", direction)) {
                if (portMatches(rule, port) && peersMatch(rule.get(peersKey), namespace, other)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<String> types(Map<String, Object> policy) {
        List<Object> declared = Yamls.asList(Yamls.at(policy, "spec", "policyTypes"));
        if (!declared.isEmpty()) {
            return declared.stream().map(String::valueOf).toList();
        }
        return Yamls.at(policy, "spec", "egress") != null ? List.of("Ingress", "Egress") : List.of("Ingress");
    }

    private static boolean portMatches(Map<String, Object> rule, int port) {
        List<Map<String, Object>> ports = Yamls.maps(rule, "ports");
        if (ports.isEmpty()) {
            return true;
        }
        for (Map<String, Object> p : ports) {
            String protocol = String.valueOf(p.getOrDefault("protocol", "TCP"));
            Object number = p.get("port");
            Object end = p.get("endPort");
            if (!protocol.equals("TCP")) {
                continue;
            }
            if (number == null) {
                return true;
            }
            if (number instanceof Integer n && (n == port || end instanceof Integer e && n <= port && port <= e)) {
                return true;
            }
        }
        return false;
    }

    private static boolean peersMatch(Object peers, String policyNamespace, Peer other) {
        List<Map<String, Object>> list = Yamls.asList(peers).stream().map(Yamls::asMap).toList();
        if (peers == null) {
            return true; // no from/to: every peer
        }
        for (Map<String, Object> peer : list) {
            Map<String, Object> block = Yamls.map(peer, "ipBlock");
            if (!block.isEmpty()) {
                if (other.ip() != null && inCidr(other.ip(), String.valueOf(block.get("cidr")))
                        && Yamls.asList(block.get("except")).stream().noneMatch(x -> inCidr(other.ip(), String.valueOf(x)))) {
                    return true;
                }
                continue;
            }
            if (other.ip() != null) {
                continue;
            }
            boolean namespaceOk = peer.containsKey("namespaceSelector")
                    ? selects(Yamls.map(peer, "namespaceSelector"), other.namespaceLabels())
                    : Objects.equals(policyNamespace, other.namespace());
            boolean podOk = !peer.containsKey("podSelector") || selects(Yamls.map(peer, "podSelector"), other.labels());
            if (namespaceOk && podOk) {
                return true;
            }
        }
        return false;
    }

    /** A label selector: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist); empty selects all. */
    static boolean selects(Map<String, Object> selector, Map<String, String> labels) {
        for (Map.Entry<String, String> e : Yamls.strings(selector, "matchLabels").entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        for (Map<String, Object> expression : Yamls.maps(selector, "matchExpressions")) {
            String key = String.valueOf(expression.get("key"));
            List<String> values = Yamls.asList(expression.get("values")).stream().map(String::valueOf).toList();
            boolean ok = switch (String.valueOf(expression.get("operator"))) {
                case "In" -> labels.containsKey(key) && values.contains(labels.get(key));
                case "NotIn" -> !labels.containsKey(key) || !values.contains(labels.get(key));
                case "Exists" -> labels.containsKey(key);
                case "DoesNotExist" -> !labels.containsKey(key);
                default -> false;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    static boolean inCidr(String ip, String cidr) {
        String[] parts = cidr.split("/");
        int bits = parts.length > 1 ? Integer.parseInt(parts[1]) : 32;
        long mask = bits == 0 ? 0 : (0xffffffffL << (32 - bits)) & 0xffffffffL;
        return (ipv4(ip) & mask) == (ipv4(parts[0]) & mask);
    }

    private static long ipv4(String ip) {
        long value = 0;
        for (String octet : ip.split("\\.")) {
            value = (value << 8) | Integer.parseInt(octet);
        }
        return value;
    }
}
