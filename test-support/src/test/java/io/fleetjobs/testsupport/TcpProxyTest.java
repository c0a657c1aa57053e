package io.fleetjobs.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The relay over several targets: connections in turn, a target that refuses passed over. */
class TcpProxyTest {
    /** A target that answers every connection with its name, then closes it. */
    private static ServerSocket target(String name) throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write(name.getBytes());
                } catch (IOException e) {
                    // closed
                }
            }
        });
        return server;
    }

    private static String ask(TcpProxy proxy) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            return new String(s.getInputStream().readAllBytes());
        }
    }

    @Test
    void newConnectionsGoToEachTargetInTurn() throws IOException {
        try (ServerSocket a = target("a"); ServerSocket b = target("b");
                TcpProxy proxy = new TcpProxy(List.of(a.getLocalPort(), b.getLocalPort()))) {
            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                answers.add(ask(proxy));
            }
            assertThat(answers).containsExactly("a", "b", "a", "b");
        }
    }

    @Test
    void aTargetThatRefusesIsPassedOver() throws IOException {
        int down;
        try (ServerSocket gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            down = gone.getLocalPort(); // nothing listens there once it is closed
        }
        try (ServerSocket b = target("b"); TcpProxy proxy = new TcpProxy(List.of(down, b.getLocalPort()))) {
            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                answers.add(ask(proxy));
            }
            assertThat(answers).containsExactly("b", "b", "b");
        }
    }
}
