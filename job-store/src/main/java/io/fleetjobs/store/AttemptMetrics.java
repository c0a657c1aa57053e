package io.fleetjobs.store;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.FailureReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Counts how attempts end and which failures are retried, once their transaction commits (a rolled-back
 * report counts nothing). Counters, so every service that applies reports counts its own share and
 * Prometheus sums them: {@code jobs_attempts_ended_total{state, reason, failure_class}} and
 * {@code jobs_retries_total{reason, failure_class}}. Tags are enum names only.
 */
final class AttemptMetrics {
    private static final String NONE = "none";

    private final MeterRegistry meters;

    AttemptMetrics(MeterRegistry meters) {
        this.meters = meters;
        if (meters != null) { // every retry series from zero, so that rates and alerts see the first one
            for (FailureReason reason : FailureReason.values()) {
                retries(reason);
            }
        }
    }

    private Counter retries(FailureReason reason) {
        return Counter.builder("jobs.retries").description("jobs queued again after a failed attempt, by failure")
                .tag("reason", reason.name()).tag("failure_class", reason.failureClass().name())
                .register(meters);
    }

    void attemptEnded(AttemptState state, FailureReason reason) {
        if (meters == null) {
            return;
        }
        FailureReason failure = state == AttemptState.FAILED && reason == null ? FailureReason.EXIT_CODE : reason;
        Counter counter = Counter.builder("jobs.attempts.ended").description("attempts ended, by state and failure reason")
                .tag("state", state.name())
                .tag("reason", failure == null ? NONE : failure.name())
                .tag("failure_class", failure == null ? NONE : failure.failureClass().name())
                .register(meters);
        afterCommit(counter::increment);
    }

    void retried(FailureReason reason) {
        if (meters == null) {
            return;
        }
        Counter counter = retries(reason);
        afterCommit(counter::increment);
    }

    private static void afterCommit(Runnable action) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            action.run();
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
    }
}
