package io.fleetjobs.agent.process;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a sandboxed attempt may not connect: the places on the network that belong to the platform (the scheduler's
 * agent API, and whatever the operator names: PostgreSQL, Kafka, the services, the cloud's metadata endpoint), as
 * nftables rules on the machine's output hook that match the attempts' uid range ({@code meta skuid}). The agent
 * itself, root, is never matched; nor is any other destination: a job keeps the machine's network (its gang's peers,
 * the internet), minus these.
 *
 * <p>Pure: a destination names addresses already resolved; {@link #nftScript} is the text {@code nft -f} applies, one
 * table per machine ({@link #table}), replaced whole and atomically whenever the agent starts.
 *
 * @param denied where the attempts may not connect
 */
public record Egress(List<Destination> denied) {
    /** The cloud's instance metadata endpoint (AWS, GCP, Azure, OpenStack): a machine's own credentials. */
    public static final String METADATA = "169.254.169.254";

    /** Denied unless the operator names a list of their own ({@code jobs.worker.isolation.deny-egress}). */
    public static final List<String> DEFAULT_DENIED = List.of(METADATA);

    private static final Pattern BRACKETED = Pattern.compile("\\[([0-9A-Fa-f:.]+)](?:/(\\d{1,3}))?(?::(\\d{1,5}))?");
    private static final Pattern PLAIN = Pattern.compile("([^:/\\s]+)(?:/(\\d{1,2}))?(?::(\\d{1,5}))?");
    private static final Pattern V6_BARE = Pattern.compile("([0-9A-Fa-f.]*:[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)(?:/(\\d{1,3}))?");
    private static final Pattern ANY_ADDRESS = Pattern.compile("\\*:(\\d{1,5})");

    public Egress {
        denied = List.copyOf(new LinkedHashSet<>(denied));
    }

    /**
     * One place denied: an address or a network ({@code prefix} bits of it), or every address ({@code network} null);
     * one port of it (TCP and UDP) or every port ({@code port} null).
     */
    public record Destination(InetAddress network, Integer prefix, Integer port) {
        public Destination {
            if (network == null && port == null) {
                throw new IllegalArgumentException("a destination of every address needs a port");
            }
            int bits = network instanceof Inet6Address ? 128 : 32;
            if (network != null && (prefix == null || prefix < 0 || prefix > bits)) {
                throw new IllegalArgumentException("a prefix of " + prefix + " bits for " + network.getHostAddress());
            }
            if (port != null && (port < 1 || port > 65535)) {
                throw new IllegalArgumentException("port " + port + " is not between 1 and 65535");
            }
        }

        /** As the operator would write it: {@code 10.0.0.0/8:5432}, {@code [::1]:8082}, {@code *:8082}. */
        @Override
        public String toString() {
            if (network == null) {
                return "*:" + port;
            }
            boolean v6 = network instanceof Inet6Address;
            int bits = v6 ? 128 : 32;
            String address = text(network) + (prefix == bits ? "" : "/" + prefix);
            return port == null ? address : (v6 ? "[" + address + "]" : address) + ":" + port;
        }

        private String match() {
            if (network == null) {
                return "";
            }
            int bits = network instanceof Inet6Address ? 128 : 32;
            return (network instanceof Inet6Address ? "ip6" : "ip") + " daddr " + text(network)
                    + (prefix == bits ? "" : "/" + prefix) + " ";
        }

        /** The address's text without the scope a link-local one may carry ({@code %eth0}), which nft does not read. */
        private static String text(InetAddress address) {
            String text = address.getHostAddress();
            int scope = text.indexOf('%');
            return scope < 0 ? text : text.substring(0, scope);
        }
    }

    /** Resolves a host name to every address it has (the only I/O of this class, given here so tests can fake it). */
    @FunctionalInterface
    public interface Resolver {
        List<InetAddress> resolve(String host) throws UnknownHostException;

        Resolver DNS = host -> List.of(InetAddress.getAllByName(host));
    }

    /**
     * The destinations an operator wrote, each {@code ADDRESS[/PREFIX][:PORT]}, {@code [IPV6][/PREFIX][:PORT]} (a bare
     * IPv6 address takes no port), {@code HOST[:PORT]} (every address it resolves to now) or {@code *:PORT} (that port
     * on every address).
     *
     * @throws IllegalArgumentException naming the entry that is not one
     */
    public static List<Destination> parse(List<String> entries, Resolver resolver) {
        List<Destination> out = new ArrayList<>();
        for (String raw : entries) {
            String entry = raw == null ? "" : raw.strip();
            if (entry.isEmpty()) {
                continue;
            }
            try {
                out.addAll(parseOne(entry, resolver));
            } catch (IllegalArgumentException | UnknownHostException e) {
                throw new IllegalArgumentException("jobs.worker.isolation.deny-egress: '" + entry + "' is not a"
                        + " destination (ADDRESS[/PREFIX][:PORT], [IPV6][:PORT], HOST[:PORT] or *:PORT): " + e.getMessage());
            }
        }
        return out;
    }

    private static List<Destination> parseOne(String entry, Resolver resolver) throws UnknownHostException {
        Matcher any = ANY_ADDRESS.matcher(entry);
        if (any.matches()) {
            return List.of(new Destination(null, null, Integer.valueOf(any.group(1))));
        }
        Matcher m = BRACKETED.matcher(entry);
        if (!m.matches()) {
            m = V6_BARE.matcher(entry);
            if (m.matches()) {
                return List.of(network(literal(m.group(1)), m.group(2), null));
            }
            m = PLAIN.matcher(entry);
            if (!m.matches()) {
                throw new IllegalArgumentException("unreadable");
            }
        }
        String host = m.group(1);
        Integer port = m.groupCount() >= 3 && m.group(3) != null ? Integer.valueOf(m.group(3)) : null;
        if (m.group(2) != null || isLiteral(host)) {
            return List.of(network(literal(host), m.group(2), port));
        }
        List<Destination> resolved = new ArrayList<>();
        for (InetAddress address : resolver.resolve(host)) {
            resolved.add(new Destination(address, address instanceof Inet6Address ? 128 : 32, port));
        }
        return resolved;
    }

    /** The scheduler's agent API as the agent dials it ({@code jobs.worker.scheduler-url}): its host's every address, its port. */
    public static List<Destination> scheduler(URI url, Resolver resolver) {
        int port = url.getPort() > 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
        String host = url.getHost().startsWith("[") ? url.getHost().substring(1, url.getHost().length() - 1) : url.getHost();
        try {
            List<Destination> out = new ArrayList<>();
            for (InetAddress address : isLiteral(host) ? List.of(literal(host)) : resolver.resolve(host)) {
                out.add(new Destination(address, address instanceof Inet6Address ? 128 : 32, port));
            }
            return out;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("the scheduler's host " + host + " does not resolve: " + e.getMessage());
        }
    }

    private static Destination network(InetAddress address, String prefix, Integer port) {
        int bits = address instanceof Inet6Address ? 128 : 32;
        int p = prefix == null ? bits : Integer.parseInt(prefix);
        if (p > bits) {
            throw new IllegalArgumentException("a prefix of " + p + " bits");
        }
        return new Destination(mask(address, p), p, port);
    }

    /** The network of {@code address} with its host bits cleared (nft refuses a network written with them set). */
    private static InetAddress mask(InetAddress address, int prefix) {
        byte[] bytes = address.getAddress();
        for (int i = 0; i < bytes.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - 8 * i));
            bytes[i] &= (byte) (0xff << (8 - keep));
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean isLiteral(String host) {
        return host.contains(":") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
    }

    private static InetAddress literal(String text) {
        if (!isLiteral(text)) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address");
        }
        try {
            return InetAddress.getByName(text); // a literal: parsed, never looked up
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address");
        }
    }

    /**
     * The nftables table of one machine's agent: {@code fleetjobs_<machine>} (letters, digits and underscores; a long
     * id shortened with its hash so that two machines never share one).
     */
    public static String table(String machineId) {
        String name = machineId.replaceAll("[^A-Za-z0-9_]", "_");
        if (name.length() > 40) {
            name = name.substring(0, 31) + "_" + String.format(Locale.ROOT, "%08x", machineId.hashCode());
        }
        return "fleetjobs_" + name;
    }

    /**
     * What {@code nft -f -} applies: the machine's table created if missing, then deleted and made again in the same
     * transaction, so that rules of an earlier start never stay beside these and no moment passes without them.
     * TCP is refused with a reset (the job sees "connection refused" at once, not a timeout), anything else with an
     * ICMP error.
     */
    public String nftScript(String table, int firstUid, int uidCount) {
        if (firstUid <= 0 || uidCount <= 0) {
            throw new IllegalArgumentException("the attempts' uids must not be root's: " + firstUid + " + " + uidCount);
        }
        String uids = "meta skuid " + firstUid + "-" + (firstUid + uidCount - 1) + " ";
        StringBuilder script = new StringBuilder()
                .append("table inet ").append(table).append(" {\n}\n")
                .append("delete table inet ").append(table).append('\n')
                .append("table inet ").append(table).append(" {\n")
                .append("  chain attempts_egress {\n")
                .append("    type filter hook output priority filter; policy accept;\n");
        Set<String> rules = new LinkedHashSet<>();
        for (Destination d : denied) {
            String head = "    " + uids + d.match();
            if (d.port() == null) {
                rules.add(head + "meta l4proto tcp reject with tcp reset");
                rules.add(head + "reject with icmpx type admin-prohibited");
            } else {
                rules.add(head + "tcp dport " + d.port() + " reject with tcp reset");
                rules.add(head + "udp dport " + d.port() + " reject with icmpx type port-unreachable");
            }
        }
        rules.forEach(r -> script.append(r).append('\n'));
        return script.append("  }\n}\n").toString();
    }
}
