package io.fleetjobs.testsupport;

import java.io.IOException;
import java.net.ServerSocket;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A real in-process Kafka broker (KRaft, combined broker and controller) on a fixed port, so that
 * a test can stop it and start a new one at the same address, as a broker restart looks to clients.
 */
public final class TestKafka implements AutoCloseable {
    private final int port;
    private final String[] topics;
    private EmbeddedKafkaKraftBroker broker;

    public TestKafka(String... topics) {
        this.port = freePort();
        this.topics = topics;
    }

    public TestKafka start() {
        if (broker != null) {
            return this;
        }
        broker = new EmbeddedKafkaKraftBroker(1, 4, topics).kafkaPorts(port);
        broker.brokerProperty("auto.create.topics.enable", "true");
        broker.brokerProperty("group.initial.rebalance.delay.ms", "0");
        broker.afterPropertiesSet();
        return this;
    }

    public void stop() {
        if (broker != null) {
            broker.destroy();
            broker = null;
        }
    }

    public boolean running() {
        return broker != null;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        stop();
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
