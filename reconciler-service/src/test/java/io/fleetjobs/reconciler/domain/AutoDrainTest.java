package io.fleetjobs.reconciler.domain;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.FailureReason;
import io.fleetjobs.reconciler.domain.AutoDrain.Action;
import io.fleetjobs.reconciler.domain.AutoDrain.Candidate;
import io.fleetjobs.reconciler.domain.AutoDrain.Region;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AutoDrainTest {
    private static final AutoDrain RULE = new AutoDrain(3, 0.1);

    @ParameterizedTest(name = "last outcomes [{0}]: drained {1}")
    @CsvSource(delimiter = ';', value = {
            "START_FAILED START_FAILED START_FAILED;   true",
            "MACHINE_LOST LEASE_EXPIRED START_FAILED;  true",
            "START_FAILED START_FAILED;                false", // too few yet
            "START_FAILED START_FAILED OK;             false", // a success in the streak
            "START_FAILED START_FAILED EXIT_CODE;      false", // the job's own failure
            "TIMEOUT START_FAILED START_FAILED;        false",
            "AGENT_RESTARTED AGENT_RESTARTED AGENT_RESTARTED; false",
            "START_FAILED START_FAILED START_FAILED OK; true"}) // only the last three count
    void onlyTheMachinesOwnFailuresInARowCount(String outcomes, boolean drained) {
        List<FailureReason> last = Arrays.stream(outcomes.trim().split("\\s+"))
                .map(o -> o.equals("OK") ? null : FailureReason.valueOf(o)).toList();
        List<Action> actions = RULE.decide(List.of(new Candidate("m", "eu", last)), Map.of("eu", new Region(5, 0)));
        assertThat(actions).hasSize(drained ? 1 : 0).allMatch(a -> a instanceof Action.Drain);
    }

    @Test
    void atMostTheRegionsShareIsDrainedInAnHourAndTheRestAreWithheld() {
        List<Candidate> broken = new ArrayList<>();
        IntStream.range(0, 50).forEach(i -> broken.add(new Candidate("m" + i, "eu",
                List.of(FailureReason.START_FAILED, FailureReason.START_FAILED, FailureReason.START_FAILED))));
        List<Action> actions = RULE.decide(broken, Map.of("eu", new Region(200, 15)));
        assertThat(actions).filteredOn(a -> a instanceof Action.Drain).extracting(Action::machineId)
                .containsExactly("m0", "m1", "m2", "m3", "m4"); // 20 of 200 an hour, 15 spent already
        assertThat(actions).filteredOn(a -> a instanceof Action.Withhold).hasSize(45).first()
                .extracting(Action::reason).asString()
                .contains("20 of the 200 machines of region eu were drained automatically in the last hour");
    }

    @Test
    void aSmallRegionMayStillLoseOneBrokenMachineAnHour() {
        List<FailureReason> broken = List.of(FailureReason.START_FAILED, FailureReason.START_FAILED, FailureReason.START_FAILED);
        List<Action> actions = RULE.decide(List.of(new Candidate("a", "local", broken), new Candidate("b", "local", broken)),
                Map.of("local", new Region(2, 0)));
        assertThat(actions).extracting(a -> a.getClass().getSimpleName()).containsExactly("Drain", "Withhold");
    }

    @Test
    void eachRegionHasItsOwnBudget() {
        List<FailureReason> broken = List.of(FailureReason.MACHINE_LOST, FailureReason.MACHINE_LOST, FailureReason.MACHINE_LOST);
        List<Action> actions = RULE.decide(List.of(new Candidate("eu-1", "eu", broken), new Candidate("us-1", "us", broken)),
                Map.of("eu", new Region(10, 1), "us", new Region(10, 0)));
        assertThat(actions).extracting(a -> a.getClass().getSimpleName() + " " + a.machineId())
                .containsExactly("Withhold eu-1", "Drain us-1");
    }

    @Test
    void lossesTheSameAgentWasHeardAfterAreNotEvidenceAndDoNotBreakAStreak() {
        Instant joined = Instant.parse("2026-12-01T10:00:00Z");
        List<AutoDrain.Ended> outlived = List.of(
                new AutoDrain.Ended(FailureReason.MACHINE_LOST, joined.plusSeconds(30)),
                new AutoDrain.Ended(FailureReason.LEASE_EXPIRED, joined.plusSeconds(20)),
                new AutoDrain.Ended(FailureReason.MACHINE_LOST, joined.plusSeconds(10)));
        assertThat(RULE.decide(List.of(new Candidate("m", "eu", joined, outlived)), Map.of("eu", new Region(5, 0))))
                .as("lost twice and a lease expired, heard again every time on the incarnation that joined before").isEmpty();

        List<AutoDrain.Ended> mixed = List.of(
                new AutoDrain.Ended(FailureReason.START_FAILED, joined.plusSeconds(40)),
                new AutoDrain.Ended(FailureReason.MACHINE_LOST, joined.plusSeconds(30)), // outlived: left out
                new AutoDrain.Ended(FailureReason.START_FAILED, joined.plusSeconds(20)),
                new AutoDrain.Ended(FailureReason.MACHINE_LOST, joined.minusSeconds(10))); // before the last join
        assertThat(RULE.decide(List.of(new Candidate("m", "eu", joined, mixed)), Map.of("eu", new Region(5, 0))))
                .singleElement().isInstanceOf(Action.Drain.class);
    }

    /** One loss ends every attempt of its machine at one instant: it is one piece of evidence, however many it ended. */
    @Test
    void theAttemptsOneLossEndedCountOnce() {
        Instant joined = Instant.parse("2026-12-01T10:00:00Z");
        Instant lost = joined.minusSeconds(60);
        List<AutoDrain.Ended> oneLoss = IntStream.range(0, 185)
                .mapToObj(i -> new AutoDrain.Ended(FailureReason.MACHINE_LOST, lost)).toList();
        assertThat(RULE.decide(List.of(new Candidate("m", "eu", joined, oneLoss)), Map.of("eu", new Region(5, 0))))
                .as("a busy machine restarted once").isEmpty();

        List<AutoDrain.Ended> threeLosses = List.of(
                new AutoDrain.Ended(FailureReason.MACHINE_LOST, lost), new AutoDrain.Ended(FailureReason.MACHINE_LOST, lost),
                new AutoDrain.Ended(FailureReason.MACHINE_LOST, lost.minusSeconds(600)),
                new AutoDrain.Ended(FailureReason.MACHINE_LOST, lost.minusSeconds(1200)));
        assertThat(RULE.decide(List.of(new Candidate("m", "eu", joined, threeLosses)), Map.of("eu", new Region(5, 0))))
                .as("lost three times").singleElement().isInstanceOf(Action.Drain.class);
    }
}
