package io.fleetjobs.agent.process;

import org.slf4j.MDC;

/**
 * The agent's side of the job ids in logs: {@code jobId} and {@code attemptId} ({@code <jobId>/<attempt>}) in
 * the logging context (SLF4J's MDC) for work on one attempt, the same keys as the services use, so that an
 * attempt's lines can be followed from submission to the process's end. The agent's machine id is a field of
 * every line already ({@code logging.structured.json.add.machineId} in application.yml). JSON fields with
 * {@code LOGGING_STRUCTURED_FORMAT_CONSOLE=ecs}; the plain console format leaves them out.
 */
public final class AttemptLogContext implements AutoCloseable {
    public static final String JOB_ID = "jobId";
    public static final String ATTEMPT_ID = "attemptId";

    private final String previousJob;
    private final String previousAttempt;

    private AttemptLogContext(AttemptKey key) {
        previousJob = MDC.get(JOB_ID);
        previousAttempt = MDC.get(ATTEMPT_ID);
        MDC.put(JOB_ID, key.jobId().toString());
        MDC.put(ATTEMPT_ID, key.jobId() + "/" + key.attempt());
    }

    /** The attempt's ids in this thread's context until closed; what was there before comes back then. */
    public static AttemptLogContext of(AttemptKey key) {
        return new AttemptLogContext(key);
    }

    /** {@code work}, run with the attempt's ids in the context of whichever thread runs it. */
    public static Runnable wrap(AttemptKey key, Runnable work) {
        return () -> {
            try (var ignored = of(key)) {
                work.run();
            }
        };
    }

    @Override
    public void close() {
        restore(JOB_ID, previousJob);
        restore(ATTEMPT_ID, previousAttempt);
    }

    private static void restore(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
