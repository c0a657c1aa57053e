package io.fleetjobs.model;

/**
 * What a user's cancel does to a job in each state: at once when the job is not on a machine; by request when
 * it is (the agent stops the attempt and confirms); nothing again when it is canceled or asked already
 * (idempotent); refused when the job has succeeded or failed.
 */
public final class CancelRule {
    private CancelRule() {
    }

    public sealed interface Decision {
        /** SUBMITTED or QUEUED: the job becomes CANCELED now. */
        record CancelNow() implements Decision {
        }

        /** On a machine: the cancel is asked; the job stays until its agent stops the attempt. */
        record RequestStop() implements Decision {
        }

        /** Canceled already, or its cancel already asked: the job stays as it is. */
        record AlreadyAsked() implements Decision {
        }

        /** It ended otherwise: a cancel cannot change it. */
        record Refused(String reason) implements Decision {
        }
    }

    public static Decision decide(JobState state, boolean cancelRequested) {
        return switch (state) {
            case SUBMITTED, QUEUED -> new Decision.CancelNow();
            case SCHEDULED, RUNNING -> cancelRequested ? new Decision.AlreadyAsked() : new Decision.RequestStop();
            case CANCELED -> new Decision.AlreadyAsked();
            case SUCCEEDED, FAILED -> new Decision.Refused("has already ended " + state);
        };
    }
}
