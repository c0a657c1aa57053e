package io.fleetjobs.workloads;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * The one PostgreSQL every workload runs against, with the same settings: an embedded PostgreSQL 17
 * (zonky binaries) with fsync and synchronous commit on, or the server named by
 * {@code JOBS_BENCH_DB_URL} (with {@code JOBS_BENCH_DB_USER}, {@code JOBS_BENCH_DB_PASSWORD}).
 * Each workload gets a fresh database of its own on that server, so they do not see each other's rows.
 */
public final class BenchPostgres implements AutoCloseable {
    /** Server settings of the embedded server; printed with every table. */
    public static final Map<String, String> SETTINGS = Map.of(
            "fsync", "on",
            "synchronous_commit", "on",
            "max_connections", "200",
            "shared_buffers", "256MB",
            "max_wal_size", "4GB");

    private final EmbeddedPostgres embedded;
    private final String host;
    private final int port;
    private final String user;
    private final String password;

    private BenchPostgres(EmbeddedPostgres embedded, String host, int port, String user, String password) {
        this.embedded = embedded;
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
    }

    public static BenchPostgres start() throws IOException {
        String url = System.getenv("JOBS_BENCH_DB_URL");
        if (url != null && !url.isBlank()) {
            // jdbc:postgresql://host:port/db
            String rest = url.substring(url.indexOf("//") + 2);
            String hostPort = rest.substring(0, rest.indexOf('/') < 0 ? rest.length() : rest.indexOf('/'));
            String h = hostPort.contains(":") ? hostPort.substring(0, hostPort.indexOf(':')) : hostPort;
            int p = hostPort.contains(":") ? Integer.parseInt(hostPort.substring(hostPort.indexOf(':') + 1)) : 5432;
            return new BenchPostgres(null, h, p, env("JOBS_BENCH_DB_USER", "postgres"),
                    env("JOBS_BENCH_DB_PASSWORD", ""));
        }
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
        SETTINGS.forEach(builder::setServerConfig);
        EmbeddedPostgres pg = builder.start();
        return new BenchPostgres(pg, "localhost", pg.getPort(), "postgres", "postgres");
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }

    /** Creates a fresh database (dropping one of the same name) and returns its JDBC URL. */
    public String createDatabase(String name) throws SQLException {
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + name);
        }
        return url(name);
    }

    public String url(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(url(database), user, password);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** The server's version and durability settings, for the header of a table. */
    public String describe() throws SQLException {
        try (Connection c = connect("postgres"); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT current_setting('server_version'), current_setting('fsync'),"
                        + " current_setting('synchronous_commit'), current_setting('shared_buffers')")) {
            r.next();
            return "PostgreSQL " + r.getString(1) + (embedded != null ? " (embedded)" : " (external)")
                    + ", fsync=" + r.getString(2) + ", synchronous_commit=" + r.getString(3)
                    + ", shared_buffers=" + r.getString(4) + ", " + Runtime.getRuntime().availableProcessors()
                    + " cores";
        }
    }

    /** Commits and WAL position of one database, to measure a workload's commits and WAL bytes. */
    public record Counters(long commits, long walBytes) {
        public Counters minus(Counters before) {
            return new Counters(commits - before.commits, walBytes - before.walBytes);
        }
    }

    public Counters counters(String database) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_force_next_flush()");
            try (ResultSet r = s.executeQuery("SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = '"
                    + database + "'), pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
                r.next();
                return new Counters(r.getLong(1), r.getLong(2));
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}
