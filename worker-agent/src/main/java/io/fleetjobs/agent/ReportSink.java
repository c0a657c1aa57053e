package io.fleetjobs.agent;

import io.fleetjobs.model.agent.AttemptReport;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import tools.jackson.databind.json.JsonMapper;

/**
 * Publishes attempt reports to Kafka at once, for low latency. Best effort: a report that does not
 * get through still rides on heartbeats until the scheduler acknowledges it.
 */
interface ReportSink extends AutoCloseable {
    void publish(AttemptReport report);

    @Override
    default void close() {
    }

    static ReportSink none() {
        return report -> { };
    }

    static ReportSink kafka(String bootstrapServers, JsonMapper json) {
        KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                ProducerConfig.LINGER_MS_CONFIG, 0));
        return new ReportSink() {
            @Override
            public void publish(AttemptReport report) {
                try {
                    producer.send(new ProducerRecord<>(AttemptReport.TOPIC, report.jobId().toString(),
                            json.writeValueAsString(report)));
                } catch (RuntimeException e) {
                    // the heartbeat path carries it
                }
            }

            @Override
            public void close() {
                producer.close(java.time.Duration.ofSeconds(2));
            }
        };
    }
}
