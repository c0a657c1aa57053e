package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobState;
import io.fleetjobs.model.UnplacedKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The kind of a deferral is a column: written with its reason, read by the wake-up, gone with the next change. */
class UnplacedKindTest {
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

    private static JobRecord queued(String name) {
        return f.jobs.transition(f.submitted(name), Transition.admit()).orElseThrow();
    }

    private static String kindOf(UUID job) {
        return f.jdbc.sql("select unplaced_kind from jobs where id = :id").param("id", job).query(String.class).list().get(0);
    }

    private static void defer(JobRecord job, UnplacedKind kind, String reason, Instant notBefore) {
        f.jobs.inTransaction(() -> placement.commit(List.of(),
                List.of(new PlacementStore.Deferral(job.id(), kind, reason, notBefore)), Duration.ofSeconds(30)));
    }

    @Test
    void onlyJobsThatFitNowhereAreWokenWhateverTheirReasonSays() {
        Instant later = Instant.now().plus(Duration.ofHours(1));
        JobRecord nowhere = queued("nowhere");
        JobRecord quota = queued("quota");
        defer(nowhere, UnplacedKind.CAN_NEVER_FIT, "a sentence that says nothing of machines", later);
        defer(quota, UnplacedKind.OVER_QUOTA, "0 of 3 machines fit (as if)", later);

        assertThat(kindOf(nowhere.id())).isEqualTo("CAN_NEVER_FIT");
        assertThat(placement.wakeUnplaceable(10)).isEqualTo(1);
        assertThat(f.jobs.get(nowhere.id()).orElseThrow().notBefore()).isBefore(later);
        assertThat(f.jobs.get(quota.id()).orElseThrow().notBefore()).isAfterOrEqualTo(later.minusMillis(1));
    }

    @Test
    void aReasonThatDiffersOnlyInItsCountsIsNotWrittenAgain() {
        JobRecord job = queued("no-room");
        var noRoom = UnplacedKind.DOES_NOT_FIT_NOW;
        String first = "0 of 100 machines fit: 97 have too little free CPU, 3 are not READY";
        defer(job, noRoom, first, null);
        String written = rowVersion(job.id());

        defer(job, noRoom, "0 of 100 machines fit: 95 have too little free CPU, 5 are not READY", null);
        assertThat(rowVersion(job.id())).as("the same filters, other counts: the row is not written").isEqualTo(written);
        assertThat(f.jobs.get(job.id()).orElseThrow().stateReason()).isEqualTo(first);

        String other = "0 of 100 machines fit: 100 have too little free memory";
        defer(job, noRoom, other, null);
        assertThat(f.jobs.get(job.id()).orElseThrow().stateReason()).as("another filter holds it").isEqualTo(other);
        defer(job, UnplacedKind.OVER_QUOTA, other, null);
        assertThat(kindOf(job.id())).as("another kind").isEqualTo("OVER_QUOTA");
    }

    @Test
    void theClaimReadsWhatTheRowShowsAndAnUnchangedReasonIsNotSent() {
        JobRecord job = queued("shown");
        var noRoom = UnplacedKind.DOES_NOT_FIT_NOW;
        String first = "0 of 7 machines fit: 7 have too little free CPU";
        defer(job, noRoom, first, null);

        PlacementStore.Shown shown = f.jobs.inTransaction(() -> placement.claim(1000).stream()
                .filter(c -> c.id().equals(job.id())).findFirst().orElseThrow().shown());
        assertThat(shown).isEqualTo(new PlacementStore.Shown(noRoom, first));

        assertThat(new PlacementStore.Deferral(job.id(), noRoom, "0 of 8 machines fit: 8 have too little free CPU", null,
                shown).writes()).as("only the counts differ").isFalse();
        assertThat(new PlacementStore.Deferral(job.id(), noRoom, "0 of 8 machines fit: 8 have too little free memory",
                null, shown).writes()).as("another filter").isTrue();
        assertThat(new PlacementStore.Deferral(job.id(), UnplacedKind.OVER_QUOTA, first, null, shown)
                .writes()).as("another kind").isTrue();
        assertThat(new PlacementStore.Deferral(job.id(), noRoom, first, Instant.now(), shown).writes())
                .as("a backoff").isTrue();
        assertThat(new PlacementStore.Deferral(job.id(), noRoom, first, null, null).writes())
                .as("nothing known of the row").isTrue();
        assertThat(new PlacementStore.Deferral(job.id(), noRoom, first, null, new PlacementStore.Shown(null, null))
                .writes()).as("a job never deferred").isTrue();
    }

    @Test
    void reasonsThatDifferOnlyInTheirNumbers() {
        assertThat(PlacementStore.Deferral.sameButCounts("0 of 100 fit: 97 a, 3 b", "0 of 9 fit: 1 a, 8 b")).isTrue();
        assertThat(PlacementStore.Deferral.sameButCounts("0 of 100 fit", "0 of 100 fit: 3 not READY")).isFalse();
        assertThat(PlacementStore.Deferral.sameButCounts("a1", "a")).isFalse();
        assertThat(PlacementStore.Deferral.sameButCounts("a", "a1")).isFalse();
        assertThat(PlacementStore.Deferral.sameButCounts("GPU type a100", "GPU type h100")).isFalse();
        assertThat(PlacementStore.Deferral.sameButCounts(null, "x")).isFalse();
        assertThat(PlacementStore.Deferral.sameButCounts(null, null)).isTrue();
    }

    /** Changes with every write of the row, whatever it writes. */
    private static String rowVersion(UUID job) {
        return f.jdbc.sql("select xmin::text from jobs where id = :id").param("id", job).query(String.class).single();
    }

    @Test
    void aChangeThroughTheDoorClearsTheKind() {
        JobRecord job = queued("canceled");
        defer(job, UnplacedKind.DOES_NOT_FIT_NOW, "0 of 1 machine fits: 1 has too little free CPU", null);
        assertThat(kindOf(job.id())).isEqualTo("DOES_NOT_FIT_NOW");

        f.jobs.transition(f.jobs.get(job.id()).orElseThrow(), Transition.cancel("by the test")).orElseThrow();
        assertThat(kindOf(job.id())).isNull();
        assertThat(f.jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.CANCELED);
    }
}
