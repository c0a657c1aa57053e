package io.fleetjobs.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The attempt's ids are in the logging context of the threads that work on it, and only there. */
class AttemptLogContextTest {
    @Test
    void aWrappedTaskSeesTheAttemptsIdsOnItsThreadAndLeavesNothingBehind() throws Exception {
        AttemptKey key = new AttemptKey(UUID.randomUUID(), 3);
        AtomicReference<String> job = new AtomicReference<>();
        AtomicReference<String> attempt = new AtomicReference<>();
        AtomicReference<String> after = new AtomicReference<>("not run");
        Thread t = Thread.ofVirtual().start(() -> {
            AttemptLogContext.wrap(key, () -> {
                job.set(MDC.get(AttemptLogContext.JOB_ID));
                attempt.set(MDC.get(AttemptLogContext.ATTEMPT_ID));
            }).run();
            after.set(MDC.get(AttemptLogContext.JOB_ID));
        });
        t.join();
        assertThat(job.get()).isEqualTo(key.jobId().toString());
        assertThat(attempt.get()).isEqualTo(key.jobId() + "/3");
        assertThat(after.get()).isNull();
        assertThat(MDC.get(AttemptLogContext.JOB_ID)).isNull();
    }
}
