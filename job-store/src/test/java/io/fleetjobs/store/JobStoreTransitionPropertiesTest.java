package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.model.IllegalTransitionException;
import io.fleetjobs.model.JobState;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of transitions against the real store: fresh and stale reads, legal and illegal
 * moves. Whatever the sequence, no illegal state is reachable, terminal states never change, the
 * version strictly increases and the history has no gaps. The seed is printed on failure.
 */
class JobStoreTransitionPropertiesTest {
    private static StoreFixture f;

    @BeforeAll
    static void start() {
        f = new StoreFixture(4);
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    @Test
    void randomSequencesKeepTheInvariants() {
        long seed = Long.getLong("seed", System.nanoTime());
        Random random = new Random(seed);
        String ctx = "seed " + seed;
        JobState[] states = JobState.values();
        for (int c = 0; c < 60; c++) {
            JobRecord job = f.submitted("prop-" + c);
            List<JobRecord> seen = new ArrayList<>(List.of(job));
            for (int step = 0; step < 25; step++) {
                // sometimes act on a stale read, as a slow concurrent writer would
                JobRecord read = random.nextInt(4) == 0 ? seen.get(random.nextInt(seen.size())) : job;
                JobState wanted = states[random.nextInt(states.length)];
                boolean stale = read.version() != job.version();
                if (random.nextInt(8) == 0 && read.state().isOnMachine()) {
                    var after = f.jobs.requestCancel(read);
                    assertThat(after.isPresent()).as(ctx).isEqualTo(!stale);
                    if (after.isPresent()) {
                        assertThat(after.get().cancelRequested()).isTrue();
                        job = after.get();
                    }
                } else if (!read.state().canMoveTo(wanted)) {
                    JobRecord r = read;
                    assertThatThrownBy(() -> f.jobs.transition(r, Transition.to(wanted, "x")))
                            .as(ctx).isInstanceOf(IllegalTransitionException.class);
                } else {
                    var after = f.jobs.transition(read, Transition.to(wanted, "step " + step));
                    assertThat(after.isPresent()).as("%s: a stale read must lose, a fresh one win", ctx).isEqualTo(!stale);
                    if (after.isPresent()) {
                        assertThat(after.get().version()).as(ctx).isGreaterThan(job.version());
                        assertThat(after.get().state()).as(ctx).isEqualTo(wanted);
                        assertThat(after.get().finishedAt() != null).as(ctx).isEqualTo(wanted.isTerminal());
                        job = after.get();
                    }
                }
                JobRecord stored = f.jobs.get(job.id()).orElseThrow();
                assertThat(stored).as(ctx).isEqualTo(job);
                seen.add(job);
            }
            Histories.assertWellFormed(f, job, ctx);
        }
    }
}
