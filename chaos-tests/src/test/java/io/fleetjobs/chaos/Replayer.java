package io.fleetjobs.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A hostile network for messages: reads {@code jobs.events} as they flow and, every few seconds, publishes
 * again a random handful of records it saw earlier, so that consumers get duplicates, late and out of order.
 * Survives broker restarts. (Agents' reports do not ride on Kafka: they go only over the agent API.)
 */
final class Replayer {
    private static final List<String> TOPICS = List.of("jobs.events");

    private final String bootstrapServers;
    private final AtomicBoolean active;
    private final Random random;
    private int replayed;

    Replayer(String bootstrapServers, AtomicBoolean active, long seed) {
        this.bootstrapServers = bootstrapServers;
        this.active = active;
        this.random = new Random(seed);
    }

    void run() {
        List<ConsumerRecord<String, String>> seen = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "chaos-replayer",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class));
             var producer = new KafkaProducer<String, String>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000))) {
            consumer.subscribe(TOPICS);
            long nextReplay = System.nanoTime();
            while (active.get()) {
                try {
                    for (var r : consumer.poll(Duration.ofMillis(500))) {
                        if (seen.size() < 50_000) {
                            seen.add(r);
                        }
                    }
                    if (System.nanoTime() >= nextReplay && !seen.isEmpty()) {
                        int n = 1 + random.nextInt(Math.min(50, seen.size()));
                        for (int i = 0; i < n; i++) {
                            var r = seen.get(random.nextInt(seen.size()));
                            producer.send(new ProducerRecord<>(r.topic(), r.key(), r.value()));
                            replayed++;
                        }
                        nextReplay = System.nanoTime() + Duration.ofMillis(1_000 + random.nextInt(3_000)).toNanos();
                    }
                } catch (RuntimeException e) {
                    // the broker is restarting: keep going
                }
            }
        }
        System.out.printf("chaos: replayed %d old records on %s%n", replayed, TOPICS);
    }
}
