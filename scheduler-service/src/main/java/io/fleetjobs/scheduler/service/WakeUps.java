package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import io.fleetjobs.store.Json;
import io.fleetjobs.support.RecordHeaders;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Turns job events into scheduling cycles (a job queued means work; a job leaving a machine means
 * room) and into agent wake-ups (a lease or a cancel for a machine whose agent long-polls here), a batch of records at
 * a time (the listener's fetch gathers them for up to 25 ms), from each record's headers alone ({@link
 * JobEvent.Headers}): its JSON is read only when it has none. Each replica listens with a group of its own (every replica hears every event) from the
 * latest offset: a wake-up is a hint, never the truth, so one missed only waits for the next cycle.
 */
@Component
class WakeUps {
    private final SchedulerLoop loop;
    private final LeaseBroker broker;

    WakeUps(SchedulerLoop loop, LeaseBroker broker) {
        this.loop = loop;
        this.broker = broker;
    }

    @KafkaListener(id = "scheduler-wake-ups", topics = JobEvent.TOPIC, batch = "true",
            groupId = "scheduler-${random.uuid}", properties = "auto.offset.reset=latest")
    void onEvents(List<ConsumerRecord<String, String>> records) {
        boolean queued = false;
        boolean room = false;
        for (ConsumerRecord<String, String> record : records) {
            JobEvent.Head event = head(record);
            if (event == null) {
                continue; // not a job event: a hint lost, nothing more
            }
            String machine = event.data() == null ? null : event.data().get("machineId");
            // an agent long-polling this replica learns of its new lease or cancel at once
            if (machine != null && event.type() == JobEventType.CANCEL_REQUESTED) {
                broker.signal(machine);
            } else if (machine != null && event.to() == JobState.SCHEDULED) {
                Integer attempt = attempt(event.data().get("attempt"));
                if (attempt == null) {
                    broker.signal(machine);
                } else {
                    broker.placed(machine, event.jobId(), attempt); // not when its heartbeat read it already
                }
            }
            if (event.type() != JobEventType.STATE_CHANGED) {
                continue;
            }
            queued |= event.to() == JobState.QUEUED && event.from() != JobState.QUEUED;
            room |= event.from() != null && event.from().isOnMachine() && !event.to().isOnMachine();
        }
        // once for the batch: the loop gathers wake-ups anyway, and each costs a look at every worker
        if (room) {
            loop.roomAppeared();
        } else if (queued) {
            loop.wake();
        }
    }

    /**
     * What the record's headers say of its event ({@link JobEvent.Headers}), or its JSON read when it has none (a
     * relay of a version before them); null when it is not a job event.
     */
    static JobEvent.Head head(ConsumerRecord<String, String> record) {
        try {
            JobEvent.Head head = record.key() == null ? null
                    : JobEvent.Headers.head(UUID.fromString(record.key()), RecordHeaders.of(record));
            return head != null ? head : Json.read(record.value(), JobEvent.Head.class);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Integer attempt(String value) {
        try {
            return value == null ? null : Integer.valueOf(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
