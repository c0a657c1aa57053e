package io.fleetjobs.jobservice.reports;

import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.Json;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Applies agents' attempt reports from {@code jobs.attempt-status}, the low-latency path. The
 * same reports also ride on heartbeats; applying is fenced and idempotent, so whichever path
 * comes first wins and the other is a no-op.
 */
@Component
class AttemptStatusConsumer {
    private final AttemptReports reports;

    AttemptStatusConsumer(AttemptReports reports) {
        this.reports = reports;
    }

    @KafkaListener(id = "attempt-status", topics = AttemptReport.TOPIC, groupId = "job-service-attempt-status")
    void onReport(String json) {
        reports.apply(Json.read(json, AttemptReport.class));
    }
}
