package io.fleetjobs.local;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** The local Kafka broker as a component: a {@link KafkaProcess}, its data kept across its own restarts. */
final class KafkaBroker implements Component {
    private final KafkaProcess kafka;
    private final Duration startTimeout;
    private final PidFiles pidFiles;
    private final LocalPlatform.Listener listener;
    private volatile ProcessHandle ending;

    KafkaBroker(KafkaProcess kafka, Duration startTimeout, PidFiles pidFiles, LocalPlatform.Listener listener) {
        this.kafka = kafka;
        this.startTimeout = startTimeout;
        this.pidFiles = pidFiles;
        this.listener = listener;
    }

    @Override
    public String name() {
        return LocalPlatform.KAFKA;
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    KafkaProcess kafka() {
        return kafka;
    }

    @Override
    public Path log() {
        return kafka.logFile();
    }

    @Override
    public String address() {
        return kafka.bootstrapServers();
    }

    @Override
    public void start() {
        if (isRunning()) {
            return;
        }
        kafka.start(startTimeout);
        kafka.process().ifPresent(p -> {
            pidFiles.record(name(), p);
            p.onExit().thenAccept(gone -> {
                if (ending != gone) {
                    listener.exited(name(), -1, log());
                }
            });
        });
    }

    @Override
    public void stop(Duration grace) {
        ending = kafka.process().orElse(null);
        kafka.stop(grace);
        pidFiles.forget(name());
    }

    @Override
    public void kill() {
        ending = kafka.process().orElse(null);
        kafka.kill();
        pidFiles.forget(name());
    }

    @Override
    public boolean isRunning() {
        return kafka.process().isPresent();
    }

    @Override
    public Optional<ProcessHandle> process() {
        return kafka.process();
    }
}
