package io.fleetjobs.local;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * PostgreSQL 17 from Maven Central binaries (zonky), run by the launcher's JVM, with its data in a
 * directory that is kept between runs, durable (fsync and synchronous commit on), on a fixed port.
 * The server itself is a daemon of pg_ctl's, not a child of the launcher: its process comes from
 * {@code postmaster.pid}.
 */
final class EmbeddedPostgresServer implements Component {
    static final String DATABASE = "fleetjobs";
    static final String USER = "postgres";

    private final Path dataDir;
    private final Path binariesDir;
    private final int port;
    private final Path log;
    private final Duration startTimeout;
    private final String password;
    private EmbeddedPostgres server;

    /** @param password the superuser's, asked of every connection (the agents' jobs run on this machine too) */
    EmbeddedPostgresServer(Path dataDir, Path binariesDir, int port, Path log, Duration startTimeout, String password) {
        this.password = Objects.requireNonNull(password, "password");
        this.dataDir = dataDir;
        this.binariesDir = binariesDir;
        this.port = port;
        this.log = log;
        this.startTimeout = startTimeout;
    }

    @Override
    public String name() {
        return LocalPlatform.POSTGRES;
    }

    @Override
    public Path log() {
        return log;
    }

    @Override
    public String address() {
        return ":" + port;
    }

    String jdbcUrl() {
        return jdbcUrl(0);
    }

    /** @param through a port that relays to this server's, or 0 for its own */
    String jdbcUrl(int through) {
        return "jdbc:postgresql://localhost:" + (through > 0 ? through : port) + "/" + DATABASE;
    }

    int port() {
        return port;
    }

    @Override
    public synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            endLeftover(dataDir);
            Files.createDirectories(binariesDir);
            Files.createDirectories(log.getParent());
            Files.writeString(log, "==== " + Instant.now() + " starting postgres on port " + port + ", data in " + dataDir + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(log.toFile());
            server = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(false)
                    .setOverrideWorkingDirectory(binariesDir.toFile())
                    .setPort(port)
                    .setRegisterShutdownHook(false) // the launcher stops it last, after the services
                    .setPGStartupWait(startTimeout)
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on")
                    .setServerConfig("max_connections", "100")
                    .setConnectConfig("password", password)
                    .setOutputRedirector(toLog)
                    .setErrorRedirector(toLog)
                    .start();
        } catch (IOException | RuntimeException e) {
            server = null;
            throw new IllegalStateException("postgres did not start on port " + port + " (data in " + dataDir + "): " + e
                    + "; see " + log, e);
        }
        askForThePassword();
        createDatabase();
    }

    /**
     * initdb lets every local connection in without a password ({@code trust}): any process of this machine,
     * a tenant's job among them, could connect as the superuser, rewrite any job and run programs as the
     * server's user. So the superuser gets the kept password and every line of {@code pg_hba.conf} asks for it
     * (scram-sha-256), read again at once; a data directory laid out by an earlier launcher is closed the same way.
     */
    private void askForThePassword() {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/postgres", USER, password);
                Statement s = c.createStatement()) {
            s.execute("set password_encryption = 'scram-sha-256'");
            s.execute("alter role " + USER + " password '" + password.replace("'", "''") + "'");
            Path hba = dataDir.resolve("pg_hba.conf");
            String before = Files.readString(hba, StandardCharsets.UTF_8);
            String after = passwordRequired(before);
            if (!after.equals(before)) {
                Files.writeString(hba, after, StandardCharsets.UTF_8);
                s.execute("select pg_reload_conf()");
            }
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("cannot make postgres on port " + port + " ask for a password: " + e.getMessage(), e);
        }
    }

    /** {@code pg_hba.conf} with every rule that lets a connection in unchecked ({@code trust}) asking for a password. */
    static String passwordRequired(String hba) {
        return hba.lines().map(line -> line.strip().startsWith("#") ? line
                        : line.replaceAll("(\\s)trust(\\s*)$", "$1scram-sha-256$2"))
                .collect(Collectors.joining("\n", "", hba.endsWith("\n") ? "\n" : ""));
    }

    private void createDatabase() {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://localhost:" + port + "/postgres", USER, password)) {
            try (PreparedStatement exists = c.prepareStatement("select 1 from pg_database where datname = ?")) {
                exists.setString(1, DATABASE);
                try (ResultSet rs = exists.executeQuery()) {
                    if (rs.next()) {
                        return;
                    }
                }
            }
            try (Statement create = c.createStatement()) {
                create.execute("create database " + DATABASE);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + DATABASE + " on port " + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * Ends a server on this data directory that an earlier launcher left running (it died before stopping
     * it): asked to shut down (SIGTERM: no new sessions; the services it served are gone already), killed
     * after a while. Called before the port is chosen, so that the port it held is free again.
     */
    static void endLeftover(Path dataDir) {
        postmaster(dataDir).ifPresent(p -> {
            List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
            all.addFirst(p);
            Processes.terminate(all, Duration.ofSeconds(30));
        });
    }

    @Override
    public void stop(Duration grace) {
        EmbeddedPostgres s;
        Optional<ProcessHandle> postmaster;
        synchronized (this) {
            s = server;
            server = null;
            if (s == null) {
                return;
            }
            postmaster = postmaster();
        }
        try {
            s.close(); // pg_ctl stop -m fast, waiting a few seconds
        } catch (IOException e) {
            // what is left is killed below
        }
        postmaster.ifPresent(p -> {
            List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
            all.addFirst(p);
            Processes.terminate(all, grace);
        });
    }

    /** SIGKILL to the server and each of its processes, as a crash of its machine; the next start recovers from the WAL. */
    @Override
    public void kill() {
        EmbeddedPostgres s;
        synchronized (this) {
            s = server;
            server = null;
            if (s == null) {
                return;
            }
        }
        postmaster().ifPresent(p -> {
            List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
            all.addFirst(p);
            Processes.kill(all);
        });
        try {
            s.close(); // releases zonky's lock on the data directory; pg_ctl finds no server to stop
        } catch (IOException e) {
            // nothing left to stop
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return server != null && postmaster().isPresent();
    }

    @Override
    public Optional<ProcessHandle> process() {
        return isRunning() ? postmaster() : Optional.empty();
    }

    private Optional<ProcessHandle> postmaster() {
        return postmaster(dataDir);
    }

    /** The server on a data directory, from {@code postmaster.pid}, when it is a live postgres. */
    private static Optional<ProcessHandle> postmaster(Path dataDir) {
        Path pidFile = dataDir.resolve("postmaster.pid");
        try {
            if (!Files.exists(pidFile)) {
                return Optional.empty();
            }
            String first = Files.readAllLines(pidFile, StandardCharsets.UTF_8).getFirst().strip();
            return ProcessHandle.of(Long.parseLong(first)).filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(true));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
