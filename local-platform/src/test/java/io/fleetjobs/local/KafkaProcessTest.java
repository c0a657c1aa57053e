package io.fleetjobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class KafkaProcessTest {

    @Test
    void aRestartedBrokerAnswersAtTheSameAddressWithItsData() throws Exception {
        try (KafkaProcess kafka = new KafkaProcess(Path.of("target", "kafka-process-test")).start()) {
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(java.nio.file.Files.getPosixFilePermissions(
                    Path.of("target", "kafka-process-test")))).as("its data, the owner's alone").isEqualTo("rwx------");
            try (var producer = new KafkaProducer<String, String>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class))) {
                producer.send(new ProducerRecord<>("t", "k", "before the restart")).get(30, TimeUnit.SECONDS);
            }
            kafka.stop();
            kafka.start();
            try (var consumer = new KafkaConsumer<String, String>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ConsumerConfig.GROUP_ID_CONFIG, "g",
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class))) {
                consumer.subscribe(List.of("t"));
                String seen = null;
                for (int i = 0; i < 30 && seen == null; i++) {
                    for (var r : consumer.poll(Duration.ofSeconds(1))) {
                        seen = r.value();
                    }
                }
                assertThat(seen).isEqualTo("before the restart");
            }
        }
    }
}
