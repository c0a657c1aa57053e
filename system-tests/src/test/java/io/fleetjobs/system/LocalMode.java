package io.fleetjobs.system;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Helpers for the tests of local mode: ports, and processes as procfs sees them. */
final class LocalMode {
    static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();

    private LocalMode() {
    }

    /**
     * An offset from local mode's default ports (services 8080–8083, PostgreSQL 55432, Kafka 59092–59093) at
     * which all of them are free, so that a developer's own run-local does not get in the way.
     */
    static int freePortOffset() {
        for (int i = 0; i < 50; i++) {
            int offset = 1000 + ThreadLocalRandom.current().nextInt(5000);
            if (List.of(8080, 8081, 8082, 8083, 9080, 9081, 9082, 9083, 55432, 59092, 59093).stream().allMatch(p -> portFree(p + offset))) {
                return offset;
            }
        }
        throw new IllegalStateException("no free range of ports for local mode");
    }

    static boolean portFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** This machine's IPv4 addresses but loopback (none on a machine without a network). */
    static List<InetAddress> nonLoopbackAddresses() {
        try {
            return NetworkInterface.networkInterfaces().filter(LocalMode::up)
                    .flatMap(NetworkInterface::inetAddresses)
                    .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress()).toList();
        } catch (SocketException e) {
            return List.of();
        }
    }

    private static boolean up(NetworkInterface i) {
        try {
            return i.isUp();
        } catch (SocketException e) {
            return false;
        }
    }

    /** Whether something accepts a connection at the address and port. */
    static boolean answers(InetAddress address, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Alive and not a zombie (an orphan that ended and that its new parent has not reaped yet). */
    static boolean alive(ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"), StandardCharsets.UTF_8);
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException e) {
            return p.isAlive();
        }
    }

    /** Processes (other than this one) whose command line names the path: what local mode ran from a home. */
    static List<ProcessHandle> processesNaming(Path path) {
        String name = path.toString();
        return ProcessHandle.allProcesses()
                .filter(p -> p.pid() != ProcessHandle.current().pid())
                .filter(p -> p.info().commandLine().map(c -> c.contains(name)).orElse(false))
                .filter(LocalMode::alive)
                .toList();
    }

    static void deleteTree(Path root) {
        try (var walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // target/ is cleaned anyway
        }
    }

    static String describe(ProcessHandle p) {
        return p.pid() + " " + p.info().commandLine().map(c -> c.substring(0, Math.min(160, c.length()))).orElse("?");
    }
}
