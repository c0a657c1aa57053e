package io.fleetjobs.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A runnable jar as a process of its own ({@code java <options> -jar <jar> <args>}), its output
 * appended to its log, with a readiness check: a service answers HTTP, an agent says it joined.
 */
final class JavaProcess implements Component {
    /** Whether a started process serves yet; one per start, as it may keep what it saw. */
    interface Readiness {
        boolean ready(JavaProcess process);
    }

    /** What happens after the process ended on a stop (not a kill): the agents' job processes are ended there. */
    interface AfterStop {
        void run(List<ProcessHandle> descendantsBeforeStop, Duration grace);
    }

    private static final Duration POLL = Duration.ofMillis(200);

    private final String name;
    private final Supplier<List<String>> command;
    private final Map<String, String> environment;
    private final Path directory;
    private final Path log;
    private final String address;
    private final Supplier<Readiness> readiness;
    private final AfterStop afterStop;
    private final Duration startTimeout;
    private final PidFiles pidFiles;
    private final LocalPlatform.Listener listener;
    private Process process;
    private volatile long logOffset;
    /** The process that is being stopped or killed on purpose: its end is no news. */
    private volatile Process ending;

    JavaProcess(String name, Supplier<List<String>> command, Map<String, String> environment, Path directory, Path log,
            String address, Supplier<Readiness> readiness, AfterStop afterStop, Duration startTimeout, PidFiles pidFiles,
            LocalPlatform.Listener listener) {
        this.name = name;
        this.command = command;
        this.environment = Map.copyOf(environment);
        this.directory = directory;
        this.log = log;
        this.address = address;
        this.readiness = readiness;
        this.afterStop = afterStop;
        this.startTimeout = startTimeout;
        this.pidFiles = pidFiles;
        this.listener = listener;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Path log() {
        return log;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public void start() {
        Process started;
        synchronized (this) {
            if (process != null && process.isAlive()) {
                return;
            }
            List<String> command = this.command.get();
            try {
                Files.createDirectories(directory);
                Files.createDirectories(log.getParent());
                Files.writeString(log, "==== " + Instant.now() + " starting " + name + ": " + String.join(" ", command) + "\n",
                        StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                logOffset = Files.size(log);
                ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
                builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
                builder.environment().putAll(environment);
                started = builder.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
            }
            process = started;
            ending = null;
            pidFiles.record(name, started.toHandle());
        }
        try {
            awaitReady(started);
        } catch (RuntimeException e) {
            kill(); // what did not come up in time is of no use, and must not hold its port
            throw e;
        }
        started.onExit().thenAccept(p -> {
            if (ending != p) {
                listener.exited(name, p.exitValue(), log);
            }
        });
    }

    private void awaitReady(Process started) {
        Readiness readiness = this.readiness.get();
        Instant deadline = Instant.now().plus(startTimeout);
        while (true) {
            if (!started.isAlive()) {
                if (ending == started) {
                    throw new IllegalStateException(name + " was stopped while it started");
                }
                throw new IllegalStateException(name + " exited with code " + started.exitValue() + " while starting; see "
                        + log + "\n" + Processes.startFailure(outputSinceStart(), 12));
            }
            if (readiness.ready(this)) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(name + " did not come up (" + address + ") within " + startTimeout.toSeconds()
                        + " s; see " + log + "\n" + Processes.startFailure(outputSinceStart(), 12));
            }
            Processes.pause(POLL);
        }
    }

    @Override
    public void stop(Duration grace) {
        Process p = claimForEnd();
        if (p == null) {
            return;
        }
        List<ProcessHandle> descendants = p.descendants().toList();
        Processes.terminate(List.of(p.toHandle()), grace);
        afterStop.run(descendants, grace);
        release(p);
    }

    @Override
    public void kill() {
        Process p = claimForEnd();
        if (p == null) {
            return;
        }
        Processes.kill(List.of(p.toHandle()));
        release(p);
    }

    private synchronized Process claimForEnd() {
        if (process == null) {
            return null;
        }
        ending = process;
        return process;
    }

    private synchronized void release(Process p) {
        if (process == p) {
            process = null;
            pidFiles.forget(name);
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public synchronized Optional<ProcessHandle> process() {
        return isRunning() ? Optional.of(process.toHandle()) : Optional.empty();
    }

    /** What the process has written to its log since this start. */
    String outputSinceStart() {
        try (FileChannel file = FileChannel.open(log)) {
            long size = file.size();
            if (size <= logOffset) {
                return "";
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(size - logOffset, 16 << 20));
            file.read(buffer, logOffset);
            return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Ready once the log says so (an agent: "joined as machine"). */
    static Supplier<Readiness> logSays(String text) {
        return () -> p -> p.outputSinceStart().contains(text);
    }

    /**
     * Ready once {@code GET /actuator/health} answers at all (503 too: a service is up while Kafka is
     * down), and then its readiness probe ({@code /actuator/health/readiness}, which leaves Kafka out)
     * says so, answers anything but 503, or has said 503 for {@code readinessGrace}.
     */
    static Supplier<Readiness> http(int port, Duration readinessGrace) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(1)).build();
        return () -> new Readiness() {
            private Instant upSince;

            @Override
            public boolean ready(JavaProcess p) {
                if (upSince == null) {
                    if (status(http, port, "/actuator/health") < 0) {
                        return false;
                    }
                    upSince = Instant.now();
                }
                int readiness = status(http, port, "/actuator/health/readiness");
                return readiness >= 0 && readiness != 503 || Instant.now().isAfter(upSince.plus(readinessGrace));
            }
        };
    }

    /** The HTTP status of a GET, or -1 when nothing answered. */
    private static int status(HttpClient http, int port, String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(2)).GET().build();
            return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The command line: {@code [setsid] java <jvm options> <launch: -jar <jar>, and what goes with it> <args>}. */
    static List<String> command(List<String> prefix, List<String> jvmOptions, List<String> launch, List<String> args) {
        List<String> command = new ArrayList<>(prefix);
        command.add(Processes.javaBin());
        command.addAll(jvmOptions);
        command.addAll(launch);
        command.addAll(args);
        return command;
    }
}
