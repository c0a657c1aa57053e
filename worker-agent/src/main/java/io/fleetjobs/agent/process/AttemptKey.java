package io.fleetjobs.agent.process;

import java.util.Objects;
import java.util.UUID;

/** One attempt of one job: the unit that a {@link ProcessRunner} runs as a process group. */
public record AttemptKey(UUID jobId, int attempt) {
    public AttemptKey {
        Objects.requireNonNull(jobId, "jobId");
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must not be negative: " + attempt);
        }
    }

    /** {@code <jobId>-<attempt>}: the name of the attempt's directory and of its process group record. */
    String fileName() {
        return jobId + "-" + attempt;
    }

    @Override
    public String toString() {
        return fileName();
    }
}
