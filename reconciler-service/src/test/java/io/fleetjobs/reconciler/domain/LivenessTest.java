package io.fleetjobs.reconciler.domain;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.MachineStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class LivenessTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Liveness RULES = new Liveness(Duration.ofSeconds(6), Duration.ofSeconds(15), 0.5, 3);

    private static Liveness.Machine machine(String id, String region, MachineStatus status, long silentSeconds) {
        return new Liveness.Machine(id, region, status, NOW.minusSeconds(silentSeconds));
    }

    /** Healthy neighbours, so that the machine under test is not part of a mass silence. */
    private static List<Liveness.Machine> withNeighbours(Liveness.Machine m) {
        List<Liveness.Machine> all = new ArrayList<>(List.of(m));
        for (int i = 0; i < 9; i++) {
            all.add(machine("n" + i, m.region(), MachineStatus.READY, 1));
        }
        return all;
    }

    @ParameterizedTest
    @CsvSource({
            "READY, 1, none", "READY, 5, none", "READY, 6, Suspect", "READY, 14, Suspect", "READY, 15, Lose",
            "SUSPECT, 2, Recover", "SUSPECT, 10, none", "SUSPECT, 20, Lose", "LOST, 1, Recover", "LOST, 100, none",
            "DRAINING, 10, none", "DRAINING, 16, Lose", "DRAINING, 1, none"})
    void eachMachineByItsSilence(MachineStatus status, long silent, String expected) {
        var actions = RULES.classify(withNeighbours(machine("m", "eu", status, silent)), NOW).actions().stream()
                .filter(a -> a.machine().id().equals("m")).toList();
        if (expected.equals("none")) {
            assertThat(actions).isEmpty();
        } else {
            assertThat(actions).singleElement().extracting(a -> a.getClass().getSimpleName()).isEqualTo(expected);
        }
    }

    @ParameterizedTest(name = "{0} s silent, the lease {1} s longer than the base: {2}")
    @CsvSource({"20, 0, Lose", "20, 54, none", "59, 54, none", "60, 54, Suspect", "68, 54, Suspect", "69, 54, Lose"})
    void aLongerLeaseMovesBothTtlsByWhatItGrew(long silent, long extraSeconds, String expected) {
        // 54 s: what a 10,000-machine fleet's lease (60 s) has beyond the base (6 s)
        var actions = RULES.classify(withNeighbours(machine("m", "eu", MachineStatus.READY, silent)), NOW,
                Duration.ofSeconds(extraSeconds)).actions().stream().filter(a -> a.machine().id().equals("m")).toList();
        if (expected.equals("none")) {
            assertThat(actions).isEmpty();
        } else {
            assertThat(actions).singleElement().extracting(a -> a.getClass().getSimpleName()).isEqualTo(expected);
        }
    }

    @Test
    void aRegionGoingSilentTogetherIsAnOutageNotAFleetDeath() {
        List<Liveness.Machine> machines = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            machines.add(machine("eu-" + i, "eu", MachineStatus.SUSPECT, i < 7 ? 30 : 1));
            machines.add(machine("us-" + i, "us", MachineStatus.READY, i == 0 ? 30 : 1));
        }
        var verdict = RULES.classify(machines, NOW);
        assertThat(verdict.massSilence()).containsOnlyKeys("eu");
        assertThat(verdict.actions()).filteredOn(a -> a.machine().region().equals("eu"))
                .allMatch(a -> a instanceof Liveness.Action.Hold || a instanceof Liveness.Action.Recover);
        assertThat(verdict.actions()).filteredOn(a -> a instanceof Liveness.Action.Hold).first()
                .extracting(a -> ((Liveness.Action.Hold) a).reason()).asString()
                .startsWith("region eu: 7 of 10 machines silent at once");
        // a lone silent machine in a healthy region is lost as usual
        assertThat(verdict.actions()).filteredOn(a -> a.machine().id().equals("us-0"))
                .singleElement().isInstanceOf(Liveness.Action.Lose.class);
    }

    /** Many random fleets: the safety rules hold whatever the mix. */
    @Test
    void randomFleetsKeepTheSafetyRules() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        MachineStatus[] statuses = MachineStatus.values();
        for (int c = 0; c < 2_000; c++) {
            List<Liveness.Machine> machines = new ArrayList<>();
            int n = 1 + random.nextInt(30);
            for (int i = 0; i < n; i++) {
                machines.add(machine("m" + i, "r" + random.nextInt(3), statuses[random.nextInt(statuses.length)],
                        random.nextInt(40)));
            }
            var verdict = RULES.classify(machines, NOW);
            for (var action : verdict.actions()) {
                long silent = Duration.between(action.machine().lastHeartbeatAt(), NOW).toSeconds();
                String ctx = "seed " + seed + ", case " + c + ": " + action;
                switch (action) {
                    case Liveness.Action.Lose lose -> {
                        assertThat(silent).as(ctx).isGreaterThanOrEqualTo(15);
                        assertThat(verdict.massSilence()).as(ctx).doesNotContainKey(lose.machine().region());
                    }
                    case Liveness.Action.Hold hold -> assertThat(verdict.massSilence()).as(ctx).containsKey(hold.machine().region());
                    case Liveness.Action.Suspect suspect -> assertThat(silent).as(ctx).isBetween(6L, 14L);
                    case Liveness.Action.Recover recover -> assertThat(silent).as(ctx).isLessThan(6);
                }
            }
            // at most one action per machine; no machine heard within the suspect TTL is ever lost or held
            assertThat(verdict.actions().stream().map(a -> a.machine().id()).distinct().count())
                    .isEqualTo(verdict.actions().size());
        }
    }
}
