package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The egress rules follow what their host names resolve to, and never lose rules because DNS or nft failed once. */
class EgressRefreshTest {
    private final AtomicReference<List<String>> dns = new AtomicReference<>(List.of("10.0.0.5", "10.0.0.6"));
    private final Egress.Resolver resolver = host -> {
        if (dns.get().isEmpty()) {
            throw new UnknownHostException(host);
        }
        List<InetAddress> out = new ArrayList<>();
        for (String a : dns.get()) {
            out.add(InetAddress.getByName(a));
        }
        return out;
    };
    private final List<Egress> applied = new ArrayList<>();
    private Optional<String> nft = Optional.empty();

    private Egress resolve() {
        return new Egress(Egress.parse(List.of("scheduler.internal:8082", "169.254.169.254"), resolver));
    }

    private EgressRefresh refresh() {
        return new EgressRefresh(resolve(), this::resolve, egress -> {
            applied.add(egress);
            return nft;
        });
    }

    @Test
    void aNameThatMovedIsAppliedAgainAndTheSameAnswerInAnotherOrderIsNot() throws Exception {
        EgressRefresh refresh = refresh();
        dns.set(List.of("10.0.0.6", "10.0.0.5"));
        assertThat(refresh.refresh()).isEqualTo(EgressRefresh.Result.UNCHANGED);
        assertThat(applied).isEmpty();

        dns.set(List.of("10.0.0.7"));
        assertThat(refresh.refresh()).isEqualTo(EgressRefresh.Result.APPLIED);
        assertThat(applied).hasSize(1);
        assertThat(applied.getFirst().denied()).extracting(Egress.Destination::network)
                .contains(InetAddress.getByName("10.0.0.7")).doesNotContain(InetAddress.getByName("10.0.0.5"));
        assertThat(refresh.current()).isEqualTo(applied.getFirst());
        assertThat(refresh.refresh()).isEqualTo(EgressRefresh.Result.UNCHANGED);
    }

    @Test
    void aNameThatNoLongerResolvesOrRulesNftRefusesLeaveTheRulesAsTheyWere() throws Exception {
        EgressRefresh refresh = refresh();
        Egress before = refresh.current();
        dns.set(List.of());
        assertThat(refresh.refresh()).isEqualTo(EgressRefresh.Result.FAILED);
        assertThat(applied).as("nothing applied: fewer rules would let jobs through").isEmpty();

        dns.set(List.of("10.0.0.9"));
        nft = Optional.of("nft exited 1");
        assertThat(refresh.refresh()).isEqualTo(EgressRefresh.Result.FAILED);
        assertThat(refresh.current()).isEqualTo(before);

        nft = Optional.empty();
        assertThat(refresh.refresh()).as("tried again at the next refresh").isEqualTo(EgressRefresh.Result.APPLIED);
    }
}
