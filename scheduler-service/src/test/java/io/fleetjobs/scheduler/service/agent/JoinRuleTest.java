package io.fleetjobs.scheduler.service.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.scheduler.service.agent.JoinRule.Decision;
import io.fleetjobs.scheduler.service.agent.JoinRule.Existing;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JoinRuleTest {
    private static final Instant NOW = Instant.parse("2026-12-01T00:00:00Z");
    private static final Duration LOST_AFTER = Duration.ofSeconds(15);

    @ParameterizedTest(name = "{0}, heard {1} s ago, credential {2}, holds {3}, presents it {4}: {5}")
    @CsvSource({
            // status, heard s ago (-1: never), has a credential, holds attempts, presents it, admitted
            "READY,    2,  true,  false, false, false", // live: a takeover
            "READY,    2,  true,  true,  false, false",
            "SUSPECT,  10, true,  false, false, false",
            "DRAINING, 2,  true,  false, false, false",
            "READY,    2,  true,  true,  true,  true",  // its own agent, restarted
            "READY,    20, true,  false, false, true",  // silent past the lost TTL, holding nothing: gone
            "READY,    20, true,  true,  false, false", // silent, but its attempts are not yet ended
            "LOST,     2,  true,  false, false, true",
            "LOST,     30, true,  true,  false, false",
            "READY,    2,  false, true,  false, true",  // never had a credential, or an operator reset it
            "READY,    -1, true,  false, false, true"})
    void theTable(MachineStatus status, int heardAgo, boolean hasCredential, boolean holds, boolean presents, boolean admitted) {
        Existing existing = new Existing(status, heardAgo < 0 ? null : NOW.minusSeconds(heardAgo), hasCredential, holds);
        Decision d = JoinRule.decide("m-1", existing, presents, NOW, LOST_AFTER);
        assertThat(d).isInstanceOf(admitted ? Decision.Admit.class : Decision.Refuse.class);
    }

    @ParameterizedTest
    @CsvSource({"true", "false"})
    void aNewIdIsAdmittedAndARefusalSaysWhatToDo(boolean presents) {
        assertThat(JoinRule.decide("m-1", null, presents, NOW, LOST_AFTER)).isInstanceOf(Decision.Admit.class);
        Decision refused = JoinRule.decide("m-1", new Existing(MachineStatus.READY, NOW.minusSeconds(3), true, false), false,
                NOW, LOST_AFTER);
        assertThat(((Decision.Refuse) refused).reason()).isEqualTo("machine m-1 is live (heard 3 s ago): a join for it must"
                + " present its credential; if its disk was lost, an operator resets it (POST /api/v1/machines/m-1/reset)");
    }
}
