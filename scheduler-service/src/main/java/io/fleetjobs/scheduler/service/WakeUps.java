package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import io.fleetjobs.store.Json;
import java.util.List;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Turns job events into scheduling cycles (a job queued means work; a job leaving a machine means
 * room) and into agent wake-ups (a lease or a cancel for a machine whose agent long-polls here), a batch of records at
 * a time (the listener's fetch gathers them for up to 25 ms). Each replica listens with a group of its own (every replica hears every event) from the
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
    void onEvents(List<String> records) {
        boolean queued = false;
        boolean room = false;
        for (String json : records) {
            JobEvent.Head event;
            try {
                event = Json.read(json, JobEvent.Head.class);
            } catch (RuntimeException e) {
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

    private static Integer attempt(String value) {
        try {
            return value == null ? null : Integer.valueOf(value);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
