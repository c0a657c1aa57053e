package io.fleetjobs.jobservice.webhooks;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a webhook is told: {@code terminal} (a job SUCCEEDED, FAILED or was CANCELED) or {@code all} (every change of
 * state), and the body it is sent. Pure.
 */
public final class WebhookEvents {
    public static final String TERMINAL = "terminal";
    public static final String ALL = "all";
    public static final List<String> KINDS = List.of(TERMINAL, ALL);

    private WebhookEvents() {
    }

    /**
     * Whether a webhook registered at {@code since} for {@code events} is told of this event: never of a change
     * older than itself (the fan-out may be catching up on the topic).
     */
    public static boolean wants(String events, Instant since, JobEvent event) {
        if (event.type() != JobEventType.STATE_CHANGED || event.to() == null || event.at().isBefore(since)) {
            return false;
        }
        return ALL.equals(events) || (TERMINAL.equals(events) && event.to().isTerminal());
    }

    /** The body of a delivery: the change, as the job's events list shows it, with the ids a receiver dedupes by. */
    public record Payload(String type, UUID eventId, UUID jobId, long jobVersion, Instant at, JobState from, JobState to,
            String reason, Map<String, String> data) {
        public static Payload of(JobEvent e) {
            return new Payload("job.state_changed", e.eventId(), e.jobId(), e.jobVersion(), e.at(), e.from(), e.to(),
                    e.reason(), e.data());
        }
    }
}
