package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Placement;
import io.fleetjobs.model.Resources;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The claim reads from the stored spec whether a job needs a sandbox (JobSpec.requiresSandbox): asked for with
 * placement.requireIsolation, or implied by a network of its own, which only the sandbox makes. A job of its own
 * network claimed as not needing one could be placed on a machine that would run it on the machine's network.
 */
class ClaimedIsolationTest {
    private static StoreFixture f;
    private static PlacementStore placement;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
        placement = new PlacementStore(f.jdbc, f.jobs);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static UUID queued(String name, Placement where, String network) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), where,
                new Execution(List.of("true"), Map.of(), null, network), null, null);
        return ((Submission.Accepted) f.jobs.submit(f.tenant, spec, null, true)).job().id();
    }

    @Test
    void aJobOfItsOwnNetworkIsClaimedAsNeedingASandboxAsOneThatAsksForIt() {
        UUID plain = queued("plain", null, null);
        UUID host = queued("host", null, Execution.HOST_NETWORK);
        UUID asked = queued("asked", new Placement(null, null, null, true), null);
        UUID ownNetwork = queued("own-network", null, Execution.NO_NETWORK);

        Map<UUID, Boolean> needs = new HashMap<>();
        f.jobs.inTransaction(() -> {
            placement.claim(100).forEach(c -> needs.put(c.id(), c.requireIsolation()));
            return null;
        });

        assertThat(needs).containsEntry(plain, false).containsEntry(host, false).containsEntry(asked, true)
                .containsEntry(ownNetwork, true);
    }
}
