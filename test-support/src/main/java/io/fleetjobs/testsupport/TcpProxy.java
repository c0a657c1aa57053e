package io.fleetjobs.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on loopback that a test can cut: {@link #cut()} drops every connection through it and
 * every new one until {@link #restore()}, as a network partition looks to both ends when something resets the
 * connections. {@link #silence()} is the other partition, the silent one: packets dropped, nothing reset, every
 * socket left open; what is sent is swallowed, nothing comes back, and new connections are taken and answered
 * with nothing. {@link #heal()} ends a partition as a healed network with timed-out peers does: the connections it held
 * are reset, new ones go through. {@link #delay} adds latency to every chunk either way.
 *
 * <p>With several targets it balances connections over them, as a Kubernetes Service does over a service's replicas:
 * each new connection goes to the next target in turn that accepts it (one refusing, being down, is passed over).
 */
public final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final List<Integer> targetPorts;
    private final AtomicInteger next = new AtomicInteger();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean silent;
    private volatile boolean silenceAfterReply;
    private volatile boolean replied;
    private volatile boolean closed;
    private volatile long delayMillis;

    public TcpProxy(int targetPort) {
        this(List.of(targetPort));
    }

    /** A relay balancing new connections over {@code targetPorts}, each in turn. */
    public TcpProxy(List<Integer> targetPorts) {
        if (targetPorts.isEmpty()) {
            throw new IllegalArgumentException("a relay needs a target");
        }
        this.targetPorts = List.copyOf(targetPorts);
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofVirtual().name("tcp-proxy-accept").start(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    public void cut() {
        cut = true;
        open.forEach(TcpProxy::quietClose);
        open.clear();
    }

    public void restore() {
        cut = false;
        silent = false;
        silenceAfterReply = false;
        replied = false;
    }

    /** From now on forwards nothing either way, and closes nothing: a silent partition. */
    public void silence() {
        silent = true;
    }

    /**
     * Goes silent once a reply has gone through whole: from the first bytes a client sends after some of the target's
     * reached it (a client sends its next request only once it read its last reply), on any connection. The worst
     * moment for a lease: just after it was renewed.
     */
    public void silenceAfterNextReply() {
        replied = false;
        silenceAfterReply = true;
    }

    /** Ends a partition (cut or silent): what it held open is reset, and everything goes through again. */
    public void heal() {
        boolean wasSilent = silent;
        restore();
        if (wasSilent) {
            open.forEach(TcpProxy::quietClose); // what was swallowed left both ends' streams broken
            open.clear();
        }
    }

    /** Every chunk, either way, waits this long before it is passed on (0: none). */
    public void delay(Duration latency) {
        delayMillis = latency.toMillis();
    }

    /** Whether the relay has gone silent. */
    public boolean isSilent() {
        return silent;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                if (cut) {
                    quietClose(client);
                    continue;
                }
                if (silenceAfterReply && replied) {
                    silent = true;
                }
                if (silent) {
                    open.add(client);
                    Thread.ofVirtual().start(() -> swallow(client));
                    continue;
                }
                Socket upstream;
                try {
                    upstream = connect();
                } catch (IOException e) {
                    quietClose(client); // no target accepts: the client sees its connection closed
                    continue;
                }
                open.add(client);
                open.add(upstream);
                Thread.ofVirtual().start(() -> pipe(client, upstream, false));
                Thread.ofVirtual().start(() -> pipe(upstream, client, true));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    /** A connection to the next target in turn that accepts one. */
    private Socket connect() throws IOException {
        IOException refused = null;
        int first = Math.floorMod(next.getAndIncrement(), targetPorts.size());
        for (int i = 0; i < targetPorts.size(); i++) {
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        targetPorts.get((first + i) % targetPorts.size())), 2_000);
                return upstream;
            } catch (IOException e) {
                quietClose(upstream);
                refused = e;
            }
        }
        throw refused;
    }

    private void pipe(Socket from, Socket to, boolean replies) {
        byte[] buffer = new byte[16 * 1024];
        try { // closing a socket's stream closes the socket: the finally closes what must be closed
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (cut) {
                    break;
                }
                if (!replies && silenceAfterReply && replied) {
                    silent = true;
                }
                if (silent) {
                    continue; // dropped on the floor; the connection stays open
                }
                long latency = delayMillis;
                if (latency > 0) {
                    Thread.sleep(latency);
                }
                out.write(buffer, 0, n);
                out.flush();
                if (replies && silenceAfterReply) {
                    replied = true;
                }
            }
        } catch (IOException ignored) {
            // one side went away: close both
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            quietClose(from);
            open.remove(from);
            if (!(silent && replies)) { // silent: the target closing its end reaches no client either
                quietClose(to);
                open.remove(to);
            }
        }
    }

    /** A connection taken while silent: whatever the client sends is read and dropped, nothing is answered. */
    private void swallow(Socket client) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = client.getInputStream()) {
            while (in.read(buffer) >= 0 && !cut) {
                // dropped
            }
        } catch (IOException ignored) {
            // closed
        } finally {
            quietClose(client);
            open.remove(client);
        }
    }

    private static void quietClose(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        cut();
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
