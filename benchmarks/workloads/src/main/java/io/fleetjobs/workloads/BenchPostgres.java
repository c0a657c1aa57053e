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
        if (profiling()) {
            builder.setServerConfig("shared_preload_libraries", "pg_stat_statements");
        }
        EmbeddedPostgres pg = builder.start();
        return new BenchPostgres(pg, "localhost", pg.getPort(), "postgres", "postgres");
    }

    /**
     * Whether {@code JOBS_BENCH_PROFILE} asks for PostgreSQL's side of a profile: the statements' times
     * (pg_stat_statements, loaded at start, so the embedded server only) and the WAL by relation.
     */
    public static boolean profiling() {
        return System.getenv("JOBS_BENCH_PROFILE") != null;
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

    /**
     * Commits and WAL position of one database, to measure a workload's commits and WAL bytes; {@code lsn} is
     * where the WAL stood, for {@link #printWalByRelation}.
     */
    public record Counters(long commits, long walBytes, String lsn) {
        public Counters minus(Counters before) {
            return new Counters(commits - before.commits, walBytes - before.walBytes, before.lsn);
        }
    }

    public Counters counters(String database) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_force_next_flush()");
            try (ResultSet r = s.executeQuery("SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = '"
                    + database + "'), pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint, pg_current_wal_lsn()::text")) {
                r.next();
                return new Counters(r.getLong(1), r.getLong(2), r.getString(3));
            }
        }
    }

    /** Forgets the statement statistics gathered so far (the preload's), where pg_stat_statements is loaded. */
    public void resetStatements(String database) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            s.execute("SELECT pg_stat_statements_reset()");
        } catch (SQLException e) {
            System.out.println("(statement statistics off: " + e.getMessage() + ")");
        }
    }

    /** The statements that took most of the server's time since {@link #resetStatements}, per job. */
    public void printStatements(String database, long jobs) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("""
                        SELECT calls, rows, total_exec_time, wal_bytes,
                               regexp_replace(left(query, 160), '\\s+', ' ', 'g'), shared_blks_hit + shared_blks_read
                        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
                        WHERE d.datname = current_database()
                        ORDER BY total_exec_time DESC LIMIT 25""")) {
            System.out.printf("%nStatements by the server's time (pg_stat_statements; per job: calls, rows, µs of"
                    + " execution, WAL bytes; shared buffers a call, hit or read: a plan that scans reads many):%n");
            System.out.println("| calls/job | rows/job | µs/job | ms/call | WAL B/job | buffers/call | statement |");
            System.out.println("| ---: | ---: | ---: | ---: | ---: | ---: | --- |");
            while (r.next()) {
                long calls = r.getLong(1);
                System.out.printf("| %.3f | %.2f | %.1f | %.2f | %.0f | %.0f | `%s` |%n", calls / (double) jobs,
                        r.getLong(2) / (double) jobs, r.getDouble(3) * 1000 / jobs, r.getDouble(3) / Math.max(1, calls),
                        r.getBigDecimal(4).doubleValue() / jobs, r.getLong(6) / (double) Math.max(1, calls),
                        r.getString(5).replace("|", "\\|"));
            }
        } catch (SQLException e) {
            System.out.println("(no statement statistics: " + e.getMessage() + ")");
        }
    }

    /**
     * Where the WAL written since {@code from} went, by relation (each record counted once, under the first
     * block it changes; full-page images apart) and by kind of record, read with pg_walinspect (a
     * superuser's extension: skipped with a note where it cannot be created). The whole server's WAL, not
     * only this database's, which is the same thing while one workload runs.
     */
    public void printWalByRelation(String database, String from, long jobs) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement()) {
            try {
                s.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
            } catch (SQLException e) {
                System.out.println("(WAL by relation skipped: " + e.getMessage() + ")");
                return;
            }
            System.out.printf("%nWAL by relation (per job; a record counted under the first block it changes, with"
                    + " all its full-page images; the last column: the images of this relation's blocks):%n");
            System.out.println("| relation | records/job | bytes/job | of which full-page images |");
            System.out.println("| --- | ---: | ---: | ---: |");
            try (ResultSet r = s.executeQuery("""
                    SELECT coalesce(c.relname, b.relfilenode::text), count(*) FILTER (WHERE b.block_id = 0),
                           sum(b.record_length) FILTER (WHERE b.block_id = 0), sum(b.block_fpi_length)
                    FROM pg_get_wal_block_info('%s', pg_current_wal_lsn(), false) b
                    LEFT JOIN pg_class c ON c.relfilenode = b.relfilenode
                    GROUP BY 1 ORDER BY 3 DESC LIMIT 25""".formatted(from))) {
                while (r.next()) {
                    System.out.printf("| %s | %.2f | %.0f | %.0f |%n", r.getString(1), r.getLong(2) / (double) jobs,
                            r.getLong(3) / (double) jobs, r.getLong(4) / (double) jobs);
                }
            }
            System.out.printf("%nWAL by kind of record (bytes per job):%n");
            System.out.println("| resource manager | records/job | bytes/job | of which full-page images |");
            System.out.println("| --- | ---: | ---: | ---: |");
            try (ResultSet r = s.executeQuery("""
                    SELECT "resource_manager/record_type", count, combined_size, fpi_size
                    FROM pg_get_wal_stats('%s', pg_current_wal_lsn(), true)
                    WHERE count > 0 ORDER BY combined_size DESC""".formatted(from))) {
                while (r.next()) {
                    System.out.printf("| %s | %.2f | %.0f | %.0f |%n", r.getString(1), r.getLong(2) / (double) jobs,
                            r.getLong(3) / (double) jobs, r.getLong(4) / (double) jobs);
                }
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
