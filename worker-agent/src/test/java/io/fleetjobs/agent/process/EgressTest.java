package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EgressTest {
    /** Names resolved from a table, never from DNS. */
    static final Egress.Resolver HOSTS = host -> {
        Map<String, List<String>> known = Map.of("postgres", List.of("10.1.2.3"),
                "scheduler", List.of("10.9.0.7", "fd00::7"));
        List<String> addresses = known.get(host);
        if (addresses == null) {
            throw new UnknownHostException(host);
        }
        return addresses.stream().map(EgressTest::address).toList();
    };

    static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void readsAddressesNetworksHostsAndPortsAsAnOperatorWritesThem() {
        List<Egress.Destination> parsed = Egress.parse(List.of("169.254.169.254", "10.0.0.0/8:5432", "postgres:5432",
                "[::1]:8082", "fd00::/8", "*:8082", "  ", "127.0.0.1:9092"), HOSTS);

        assertThat(parsed).map(Egress.Destination::toString).containsExactly("169.254.169.254", "10.0.0.0/8:5432",
                "10.1.2.3:5432", "[0:0:0:0:0:0:0:1]:8082", "fd00:0:0:0:0:0:0:0/8", "*:8082", "127.0.0.1:9092");
    }

    @Test
    void aNetworkWrittenWithHostBitsIsItsNetwork() {
        assertThat(Egress.parse(List.of("10.1.2.3/8:5432"), HOSTS)).map(Egress.Destination::toString)
                .containsExactly("10.0.0.0/8:5432");
    }

    @Test
    void anEntryThatIsNoDestinationIsRefusedByName() {
        for (String bad : List.of("10.0.0.0/40", "nowhere:5432", "10.0.0.1:70000", "*", "*:0", "host/8", "::1:x")) {
            assertThatThrownBy(() -> Egress.parse(List.of(bad), HOSTS)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("jobs.worker.isolation.deny-egress").hasMessageContaining("'" + bad + "'");
        }
    }

    @Test
    void theSchedulerIsEveryAddressOfItsHostAtItsPort() {
        assertThat(Egress.scheduler(URI.create("http://scheduler:8082"), HOSTS)).map(Egress.Destination::toString)
                .containsExactly("10.9.0.7:8082", "[fd00:0:0:0:0:0:0:7]:8082");
        assertThat(Egress.scheduler(URI.create("https://10.0.0.5"), HOSTS)).map(Egress.Destination::toString)
                .containsExactly("10.0.0.5:443");
        assertThat(Egress.scheduler(URI.create("http://[::1]:9382"), HOSTS)).map(Egress.Destination::toString)
                .containsExactly("[0:0:0:0:0:0:0:1]:9382");
        assertThatThrownBy(() -> Egress.scheduler(URI.create("http://elsewhere:8082"), HOSTS))
                .hasMessageContaining("elsewhere");
    }

    @Test
    void theRulesMatchOnlyTheAttemptsUidsAndRefuseEachDestination() {
        Egress egress = new Egress(Egress.parse(List.of("127.0.0.1:9382", "169.254.169.254", "*:8082", "[::1]:9382",
                "127.0.0.1:9382"), HOSTS));

        String script = egress.nftScript("fleetjobs_m_1", 61000, 1000);

        assertThat(script).startsWith("table inet fleetjobs_m_1 {\n}\ndelete table inet fleetjobs_m_1\n"
                + "table inet fleetjobs_m_1 {\n  chain attempts_egress {\n"
                + "    type filter hook output priority filter; policy accept;\n");
        assertThat(script.lines().filter(l -> l.contains("reject")).toList()).containsExactly(
                "    meta skuid 61000-61999 ip daddr 127.0.0.1 tcp dport 9382 reject with tcp reset",
                "    meta skuid 61000-61999 ip daddr 127.0.0.1 udp dport 9382 reject with icmpx type port-unreachable",
                "    meta skuid 61000-61999 ip daddr 169.254.169.254 meta l4proto tcp reject with tcp reset",
                "    meta skuid 61000-61999 ip daddr 169.254.169.254 reject with icmpx type admin-prohibited",
                "    meta skuid 61000-61999 tcp dport 8082 reject with tcp reset",
                "    meta skuid 61000-61999 udp dport 8082 reject with icmpx type port-unreachable",
                "    meta skuid 61000-61999 ip6 daddr 0:0:0:0:0:0:0:1 tcp dport 9382 reject with tcp reset",
                "    meta skuid 61000-61999 ip6 daddr 0:0:0:0:0:0:0:1 udp dport 9382 reject with icmpx type port-unreachable");
        assertThatThrownBy(() -> egress.nftScript("t", 0, 10)).hasMessageContaining("root");
    }

    @Test
    void eachMachineHasATableOfItsOwnWhateverItsIdIsMadeOf() {
        assertThat(Egress.table("local-1")).isEqualTo("fleetjobs_local_1");
        String a = Egress.table("gpu-node-" + "x".repeat(60) + "-a");
        String b = Egress.table("gpu-node-" + "x".repeat(60) + "-b");
        assertThat(a).isNotEqualTo(b).matches("fleetjobs_[A-Za-z0-9_]{1,40}");
    }
}
