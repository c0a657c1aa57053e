package io.fleetjobs.jobservice.reports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.jobservice.JobServiceTestBase;
import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.agent.AttemptReport;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Json;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.store.Submission;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Issue 18: reports reach the job rows only over the agent API, bound to the machine's credential. Anyone who
 * reaches Kafka can write to {@code jobs.attempt-status}, where agents once published their reports; a record
 * there, right in every field the fence checks (job, attempt, epoch 1, and no machine, which the fence does not
 * check), leaves a RUNNING job RUNNING, because nothing in job-service reads that topic any more.
 */
class ForgedKafkaReportTest extends JobServiceTestBase {
    /** The topic agents used to publish on; named here as an attacker would name it. */
    private static final String OLD_REPORT_TOPIC = "jobs.attempt-status";

    @Autowired
    JdbcClient jdbc;
    @Autowired
    JobStore jobs;
    @Autowired
    AttemptReports reports;

    @Test
    void aReportPutOnKafkaDoesNotChangeARunningJob() throws Exception {
        String machine = "forged-" + UUID.randomUUID();
        new MachineStore(jdbc, InstantSource.system()).register(machine, "eu", Map.of(), null, 64_000, 65_536, 0);
        UUID tenant = tenants.create("forged-" + UUID.randomUUID().toString().substring(0, 8), 1, null, null, null)
                .orElseThrow().id();
        JobSpec spec = new JobSpec("forged", null, null, Resources.of(1, 64), null, Execution.of("sleep", "600"), null, null);
        JobRecord job = ((Submission.Accepted) jobs.submit(tenant, spec, null, true)).job();
        PlacementStore placement = new PlacementStore(jdbc, jobs);
        jobs.inTransaction(() -> placement.commit(List.of(new PlacementStore.NewAttempt(
                placement.reclaim(List.of(job.id())).getFirst(), machine, 1000, 64, 0)), List.of(), Duration.ofSeconds(30)));
        int attempt = jobs.get(job.id()).orElseThrow().attempt();
        long epoch = jobs.attempts(job.id()).getLast().leaseEpoch(); // even the lease's own epoch: the path is gone
        // the agent's own report, as its heartbeat carries it to the scheduler
        reports.apply(new AttemptReport(job.id(), attempt, epoch, machine, AttemptState.RUNNING, null, null, Instant.now(),
                null, null, null));
        assertThat(jobs.get(job.id()).orElseThrow().state()).isEqualTo(JobState.RUNNING);

        Instant t = Instant.now();
        String forged = Json.write(new AttemptReport(job.id(), attempt, epoch, null, AttemptState.SUCCEEDED, 0, null, t, t,
                "", ""));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
            producer.send(new ProducerRecord<>(OLD_REPORT_TOPIC, job.id().toString(), forged)).get(10, TimeUnit.SECONDS);
        }

        // a condition that must hold throughout, not a sleep: with a consumer on the topic the job ends within it
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> jobs.get(job.id()).orElseThrow().state() == JobState.RUNNING);
    }
}
