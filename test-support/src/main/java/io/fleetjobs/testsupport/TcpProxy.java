package io.fleetjobs.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on loopback that a test can cut: {@link #cut()} drops every connection through it and
 * every new one until {@link #restore()}, as a network partition looks to both ends.
 */
public final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean closed;

    public TcpProxy(int targetPort) {
        this.targetPort = targetPort;
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
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                if (cut) {
                    quietClose(client);
                    continue;
                }
                Socket upstream = new Socket();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 2_000);
                open.add(client);
                open.add(upstream);
                Thread.ofVirtual().start(() -> pipe(client, upstream));
                Thread.ofVirtual().start(() -> pipe(upstream, client));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                if (cut) {
                    break;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException ignored) {
            // one side went away: close both
        } finally {
            quietClose(from);
            quietClose(to);
            open.remove(from);
            open.remove(to);
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
