package io.fleetjobs.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the job processes say of themselves, independently of the platform: each opens a TCP connection to this
 * server when it starts ("start JOB ATTEMPT") and holds it for its whole life, its children with it; the kernel
 * closes it when the last of them dies, however they die (an exit, SIGKILL, the machine's processes destroyed).
 * One record per process, never merged: two processes of one attempt are two records. It works across the
 * sandbox's PID and mount namespaces, where a pid or a shared file may mean nothing outside.
 */
final class Witness implements AutoCloseable {
    /** One job process, as it told the witness: its own id, the job and attempt it says it runs, and its life. */
    static final class Process {
        final int id;
        volatile String jobId;
        volatile int attempt;
        final long startNanos;
        final Instant startedAt;
        volatile long endNanos = Long.MAX_VALUE;

        Process(int id) {
            this.id = id;
            this.startNanos = System.nanoTime();
            this.startedAt = Instant.now();
        }

        boolean open() {
            return endNanos == Long.MAX_VALUE;
        }

        boolean overlaps(Process other) {
            return startNanos < other.endNanos && other.startNanos < endNanos;
        }
    }

    private final ServerSocket server;
    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();

    Witness() {
        try {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 512);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofVirtual().start(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    /** The line a job's bash script starts with: fd 3 is the connection, inherited by everything it runs. */
    String preamble() {
        return "exec 3<>/dev/tcp/127.0.0.1/" + port() + " && echo \"start $JOBS_JOB_ID $JOBS_ATTEMPT\" >&3; ";
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                Process process = new Process(ids.incrementAndGet());
                processes.add(process);
                Thread.ofVirtual().start(() -> follow(socket, process));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void follow(Socket socket, Process process) {
        try (socket; BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] p = line.trim().split(" ");
                if (p.length == 3 && p[0].equals("start")) {
                    process.jobId = p[1];
                    process.attempt = Integer.parseInt(p[2]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // a reset is an end too
        } finally {
            process.endNanos = System.nanoTime();
        }
    }

    List<Process> processes() {
        return List.copyOf(processes);
    }

    long open() {
        return processes.stream().filter(Process::open).count();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
