package io.fleetjobs.model;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * How failures of the user's kind are retried. Infrastructure failures have a budget of their own
 * (see {@link FailureReason.FailureClass}).
 *
 * @param maxAttempts attempts in all that the user's failures may spend, 1-20
 * @param retryOnExitCodes exit codes that mean "transient, try again"
 */
public record RetryPolicy(
        @Min(1) @Max(20) Integer maxAttempts,
        @Size(max = 64) List<@NotNull @Min(1) @Max(255) Integer> retryOnExitCodes,
        @PositiveOrZero @Max(86_400) Integer backoffSeconds,
        @PositiveOrZero @Max(86_400) Integer maxBackoffSeconds) {

    public static final RetryPolicy DEFAULT = new RetryPolicy(null, null, null, null);

    public RetryPolicy {
        maxAttempts = maxAttempts == null ? 3 : maxAttempts;
        retryOnExitCodes = Copies.list(retryOnExitCodes, List.of());
        backoffSeconds = backoffSeconds == null ? 5 : backoffSeconds;
        maxBackoffSeconds = maxBackoffSeconds == null ? 300 : maxBackoffSeconds;
    }
}
