package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

/** What every job's history must look like, whatever happened to it. */
final class Histories {
    private Histories() {
    }

    /**
     * Versions 1..n without gaps, each step legal (a same-state step is a cancel request), nothing
     * after a terminal state, and each history row an event.
     */
    static void assertWellFormed(StoreFixture f, JobRecord job, String context) {
        List<HistoryEntry> history = f.jobs.history(job.id());
        assertThat(history).as("%s: history of %s", context, job.id()).hasSize((int) job.version());
        for (int i = 0; i < history.size(); i++) {
            HistoryEntry e = history.get(i);
            assertThat(e.version()).as(context).isEqualTo(i + 1);
            if (i == 0) {
                assertThat(e.from()).as(context).isNull();
            } else {
                HistoryEntry prev = history.get(i - 1);
                assertThat(e.from()).as(context).isEqualTo(prev.to());
                assertThat(prev.to().isTerminal()).as("%s: %s changed after terminal", context, job.id()).isFalse();
                assertThat(e.from() == e.to() || e.from().canMoveTo(e.to()))
                        .as("%s: %s -> %s legal", context, e.from(), e.to()).isTrue();
            }
        }
        assertThat(history.getLast().to()).as(context).isEqualTo(job.state());
        long events = f.jdbc.sql("select count(*) from job_history where job_id = :id and event_id is not null")
                .param("id", job.id()).query(Long.class).single();
        assertThat(events).as("%s: one event per change", context).isEqualTo(job.version());
    }
}
