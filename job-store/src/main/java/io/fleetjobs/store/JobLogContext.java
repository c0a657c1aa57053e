package io.fleetjobs.store;

import java.util.UUID;
import org.slf4j.MDC;

/**
 * Puts a job's ids into the logging context (SLF4J's MDC) for the work done on that job, so that every
 * line written meanwhile carries them: {@code jobId}, {@code attemptId} ({@code <jobId>/<attempt>}) and
 * {@code machineId} where known. With structured logging on
 * ({@code LOGGING_STRUCTURED_FORMAT_CONSOLE=ecs}) they are fields of each JSON line; the plain console
 * format leaves them out.
 *
 * <pre>{@code
 * try (var ignored = JobLogContext.of(jobId, attempt, machineId)) {
 *     ... // log lines here carry the ids
 * }
 * }</pre>
 *
 * Closing restores what the thread's context held before, so contexts nest.
 */
public final class JobLogContext implements AutoCloseable {
    public static final String JOB_ID = "jobId";
    public static final String ATTEMPT_ID = "attemptId";
    public static final String MACHINE_ID = "machineId";

    private final String previousJob;
    private final String previousAttempt;
    private final String previousMachine;

    private JobLogContext(UUID jobId, Integer attempt, String machineId) {
        previousJob = MDC.get(JOB_ID);
        previousAttempt = MDC.get(ATTEMPT_ID);
        previousMachine = MDC.get(MACHINE_ID);
        put(JOB_ID, jobId == null ? null : jobId.toString());
        put(ATTEMPT_ID, jobId == null || attempt == null || attempt < 1 ? null : attemptId(jobId, attempt));
        put(MACHINE_ID, machineId);
    }

    /** The context of work on a job, before any attempt or when the attempt is not known. */
    public static JobLogContext of(UUID jobId) {
        return new JobLogContext(jobId, null, null);
    }

    /** The context of work on one attempt of a job; {@code machineId} may be null when not known. */
    public static JobLogContext of(UUID jobId, Integer attempt, String machineId) {
        return new JobLogContext(jobId, attempt, machineId);
    }

    /** An attempt's id as logs name it: the job's id and the attempt's number. */
    public static String attemptId(UUID jobId, int attempt) {
        return jobId + "/" + attempt;
    }

    @Override
    public void close() {
        put(JOB_ID, previousJob);
        put(ATTEMPT_ID, previousAttempt);
        put(MACHINE_ID, previousMachine);
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
