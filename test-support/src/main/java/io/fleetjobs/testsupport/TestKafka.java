package io.fleetjobs.testsupport;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/** A real in-process Kafka broker (KRaft, combined broker and controller), started in about two seconds. */
public final class TestKafka implements AutoCloseable {
    private final EmbeddedKafkaKraftBroker broker;

    public TestKafka(String... topics) {
        broker = new EmbeddedKafkaKraftBroker(1, 4, topics);
        broker.brokerProperty("auto.create.topics.enable", "true");
        broker.brokerProperty("group.initial.rebalance.delay.ms", "0");
    }

    public TestKafka start() {
        broker.afterPropertiesSet();
        return this;
    }

    public String bootstrapServers() {
        return broker.getBrokersAsString();
    }

    @Override
    public void close() {
        broker.destroy();
    }
}
