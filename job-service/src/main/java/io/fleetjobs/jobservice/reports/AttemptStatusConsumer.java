package io.fleetjobs.jobservice.reports;

import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.Json;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Applies agents' attempt reports from {@code jobs.attempt-status}, the low-latency path, a polled
 * batch at a time in one transaction. The same reports also ride on heartbeats, until a heartbeat's
 * answer acknowledges them; applying is fenced and idempotent, so whichever path comes first wins and
 * the other is a no-op. A report whose attempt another transaction holds (the same report arriving
 * on its machine's heartbeat, most often) is not waited for ({@link AttemptReports#applyAvailable}):
 * that transaction decides it, and should it roll back, the agent sends the report again with its next
 * heartbeat. Waiting would queue the whole batch behind the slowest heartbeat. A record that is not a
 * report is logged and skipped: it can never apply.
 */
@Component
class AttemptStatusConsumer {
    private static final Logger log = LoggerFactory.getLogger(AttemptStatusConsumer.class);

    private final AttemptReports reports;

    AttemptStatusConsumer(AttemptReports reports) {
        this.reports = reports;
    }

    @KafkaListener(id = "attempt-status", topics = AttemptReport.TOPIC, groupId = "job-service-attempt-status", batch = "true")
    void onReports(List<String> records) {
        List<AttemptReport> batch = new ArrayList<>(records.size());
        for (String json : records) {
            try {
                batch.add(Json.read(json, AttemptReport.class));
            } catch (RuntimeException e) {
                log.warn("skipping a record of {} that is not an attempt report: {}", AttemptReport.TOPIC, e.getMessage());
            }
        }
        reports.applyAvailable(batch);
    }
}
