package io.fleetjobs.support;

/** Which service serves a path of the public API: what the gateway routes by, and whom it signs an identity for. */
public final class ApiPaths {
    public static final String JOB_SERVICE = "job-service";
    public static final String SCHEDULER_SERVICE = "scheduler-service";

    private ApiPaths() {
    }

    /** {@code /api/v1/machines/**} is the scheduler's; every other {@code /api} path is job-service's. */
    public static String serviceFor(String path) {
        return path.equals("/api/v1/machines") || path.startsWith("/api/v1/machines/") ? SCHEDULER_SERVICE : JOB_SERVICE;
    }
}
