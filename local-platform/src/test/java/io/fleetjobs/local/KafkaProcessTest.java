package io.fleetjobs.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
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
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class KafkaProcessTest {

    @Test
    void aRestartedBrokerAnswersAtTheSameAddressWithItsData() throws Exception {
        try (KafkaProcess kafka = new KafkaProcess(Path.of("target", "kafka-process-test")).start()) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(
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

    @Test
    void withAPasswordABrokerLetsInOnlyAClientThatShowsIt() throws Exception {
        Path dir = Path.of("target", "kafka-process-password-test");
        try (KafkaProcess kafka = new KafkaProcess(dir, System.getProperty("java.class.path"), KafkaProcess.freePort(),
                KafkaProcess.freePort(), KafkaProcess.DEFAULT_JVM_OPTIONS, dir.resolve("kafka.log"), List.of(),
                "the-kept-password").start()) {
            Map<String, Object> stranger = new HashMap<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000));
            Map<String, Object> guesser = new HashMap<>(stranger);
            guesser.putAll(Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN", "sasl.jaas.config",
                    "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"fleetjobs\" password=\"guess\";"));
            for (Map<String, Object> refused : List.of(stranger, guesser)) {
                try (var producer = new KafkaProducer<String, String>(refused)) {
                    Assertions.assertThatThrownBy(() -> producer.send(
                            new ProducerRecord<>("t", "k", "forged")).get(10, TimeUnit.SECONDS))
                            .isInstanceOf(Exception.class);
                }
            }
            Map<String, Object> known = new HashMap<>(stranger);
            known.putAll(kafka.clientProperties());
            try (var producer = new KafkaProducer<String, String>(known)) {
                assertThat(producer.send(new ProducerRecord<>("t", "k", "let in")).get(30, TimeUnit.SECONDS).offset())
                        .isZero();
            }
        }
    }
}
