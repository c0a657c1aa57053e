package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import io.fleetjobs.store.Json;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Turns job events into scheduling cycles (a job queued means work; a job leaving a machine means
 * room) and into agent wake-ups (a lease or a cancel for a machine whose agent long-polls here). Each replica listens with a group of its own (every replica hears every event) from the
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

    @KafkaListener(id = "scheduler-wake-ups", topics = JobEvent.TOPIC,
            groupId = "scheduler-${random.uuid}", properties = "auto.offset.reset=latest")
    void onEvent(String json) {
        JobEvent.Head event = Json.read(json, JobEvent.Head.class);
        String machine = event.data() == null ? null : event.data().get("machineId");
        if (machine != null && (event.type() == JobEventType.CANCEL_REQUESTED || event.to() == JobState.SCHEDULED)) {
            broker.signal(machine); // an agent long-polling this replica learns of its new lease or cancel at once
        }
        if (event.type() != JobEventType.STATE_CHANGED) {
            return;
        }
        if (event.to() == JobState.QUEUED && event.from() != JobState.QUEUED) {
            loop.wake();
        }
        if (event.from() != null && event.from().isOnMachine() && !event.to().isOnMachine()) {
            loop.roomAppeared();
        }
    }
}
