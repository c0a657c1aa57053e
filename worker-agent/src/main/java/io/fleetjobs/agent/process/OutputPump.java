package io.fleetjobs.agent.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies one output stream of a process into a file, up to a cap, and keeps its tail in memory. It reads
 * to the end whatever the cap, so that a process never blocks on a full pipe; past the cap, bytes only
 * reach the tail.
 */
final class OutputPump implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(OutputPump.class);
    private static final int CHUNK = 16 * 1024;

    private final InputStream in;
    private final Path file;
    private final long cap;
    private final TailBuffer tail;
    private final CompletableFuture<Void> done = new CompletableFuture<>();

    OutputPump(InputStream in, Path file, long cap, int tailBytes) {
        this.in = in;
        this.file = file;
        this.cap = cap;
        this.tail = new TailBuffer(tailBytes);
    }

    @Override
    public void run() {
        OutputStream out = open();
        long written = 0;
        byte[] chunk = new byte[CHUNK];
        try (in) {
            int n;
            while ((n = in.read(chunk)) != -1) {
                tail.append(chunk, 0, n);
                if (out != null) {
                    int k = (int) Math.min(n, cap - written);
                    try {
                        out.write(chunk, 0, k);
                        written += k;
                    } catch (IOException e) {
                        log.warn("cannot write {} (output from here on is kept in the tail only): {}", file, e.toString());
                        written = cap;
                    }
                    if (written >= cap) {
                        close(out);
                        out = null;
                    }
                }
            }
        } catch (IOException e) {
            log.debug("output stream for {} ended: {}", file, e.toString());
        } finally {
            close(out);
            done.complete(null);
        }
    }

    /** Completes when the stream has reached its end (every writer closed it). */
    CompletableFuture<Void> done() {
        return done;
    }

    String tail() {
        return tail.text();
    }

    private OutputStream open() {
        if (cap <= 0) {
            return null;
        }
        try {
            return Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            log.warn("cannot open {} (output is kept in the tail only): {}", file, e.toString());
            return null;
        }
    }

    private void close(OutputStream out) {
        if (out == null) {
            return;
        }
        try {
            out.close();
        } catch (IOException e) {
            log.warn("cannot close {}: {}", file, e.toString());
        }
    }
}
