package io.fleetjobs.scheduler.service;

import io.fleetjobs.model.JobEvent;
import io.fleetjobs.model.JobEventType;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.Json;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Turns job events into scheduling cycles: a job queued means work; a job leaving a machine means
 * room. Each replica listens with a group of its own (every replica hears every event) from the
 * latest offset: a wake-up is a hint, never the truth, so one missed only waits for the next cycle.
 */
@Component
class WakeUps {
    private final SchedulerLoop loop;

    WakeUps(SchedulerLoop loop) {
        this.loop = loop;
    }

    @KafkaListener(id = "scheduler-wake-ups", topics = JobEvent.TOPIC,
            groupId = "scheduler-${random.uuid}", properties = "auto.offset.reset=latest")
    void onEvent(String json) {
        JobEvent event = Json.read(json, JobEvent.class);
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
