package io.fleetjobs.testsupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.migrations.Migrate;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real PostgreSQL for tests: one server per JVM and a fresh database, migrated with the real
 * migrations, per call of {@link #create()}. The server is an embedded PostgreSQL 17 from Maven
 * Central binaries, unless {@code JOBS_TEST_DB_URL} names one (a URL of a database on that server
 * whose user may create databases; with {@code JOBS_TEST_DB_USER} and {@code JOBS_TEST_DB_PASSWORD}).
 */
public final class TestDatabases {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static Server server;

    private TestDatabases() {
    }

    /** A connection to a new, migrated database. */
    public record Database(String url, String user, String password) {
        public HikariDataSource dataSource(int poolSize) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url);
            config.setUsername(user);
            config.setPassword(password);
            config.setMaximumPoolSize(poolSize);
            return new HikariDataSource(config);
        }
    }

    private record Server(String adminUrl, String user, String password, String urlPrefix) {
    }

    public static synchronized Database create() {
        Server s = server();
        String name = "fj_test_" + ProcessHandle.current().pid() + "_" + COUNTER.incrementAndGet();
        try (Connection c = DriverManager.getConnection(s.adminUrl(), s.user(), s.password());
             Statement st = c.createStatement()) {
            st.execute("create database " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database on " + s.adminUrl(), e);
        }
        Database db = new Database(s.urlPrefix() + name, s.user(), s.password());
        try (HikariDataSource ds = db.dataSource(2)) {
            Migrate.apply(ds);
        }
        return db;
    }

    private static Server server() {
        if (server != null) {
            return server;
        }
        String external = System.getenv("JOBS_TEST_DB_URL");
        if (external != null && !external.isBlank()) {
            String prefix = external.substring(0, external.lastIndexOf('/') + 1);
            server = new Server(external, System.getenv("JOBS_TEST_DB_USER"), System.getenv("JOBS_TEST_DB_PASSWORD"), prefix);
            return server;
        }
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("shared_buffers", "128MB")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException ignored) {
                    // the JVM is going away; the data directory is temporary
                }
            }));
            String prefix = "jdbc:postgresql://localhost:" + pg.getPort() + "/";
            server = new Server(prefix + "postgres", "postgres", "postgres", prefix);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
    }
}
