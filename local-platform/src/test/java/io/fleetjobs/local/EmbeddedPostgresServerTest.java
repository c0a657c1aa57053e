package io.fleetjobs.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Local mode's PostgreSQL: any process of the machine reaches its port, so it lets in only who knows the password. */
class EmbeddedPostgresServerTest {
    @TempDir
    Path home;

    @Test
    void everyTrustRuleOfPgHbaAsksForAPasswordAndCommentsStayAsTheyWere() {
        String hba = """
                # TYPE  DATABASE  USER  ADDRESS  METHOD
                # "local" is for Unix domain socket connections only: trust
                local   all             all                                     trust
                host    all             all             127.0.0.1/32            trust
                host    replication     all             ::1/128                 trust\t
                host    all             all             10.0.0.0/8              md5
                """;

        assertThat(EmbeddedPostgresServer.passwordRequired(hba)).isEqualTo("""
                # TYPE  DATABASE  USER  ADDRESS  METHOD
                # "local" is for Unix domain socket connections only: trust
                local   all             all                                     scram-sha-256
                host    all             all             127.0.0.1/32            scram-sha-256
                host    replication     all             ::1/128                 scram-sha-256\t
                host    all             all             10.0.0.0/8              md5
                """);
    }

    @Test
    void aConnectionWithoutThePasswordIsRefusedOnTheFirstStartAndOnTheNext() throws Exception {
        Path binaries = Files.createDirectories(Path.of("target", "embedded-pg-binaries").toAbsolutePath());
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        for (int run = 1; run <= 2; run++) {
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(home.resolve("pg"), binaries, port,
                    home.resolve("postgres.log"), Duration.ofSeconds(60), "the-kept-password");
            server.start();
            try {
                String url = "jdbc:postgresql://localhost:" + server.port() + "/" + EmbeddedPostgresServer.DATABASE;
                assertThatThrownBy(() -> DriverManager.getConnection(url, EmbeddedPostgresServer.USER, ""))
                        .as("run " + run).isInstanceOf(SQLException.class).hasMessageContaining("password");
                assertThatThrownBy(() -> DriverManager.getConnection(url, EmbeddedPostgresServer.USER, "guess"))
                        .as("run " + run).isInstanceOf(SQLException.class).hasMessageContaining("password");
                try (Connection c = DriverManager.getConnection(url, EmbeddedPostgresServer.USER, "the-kept-password")) {
                    assertThat(c.isValid(5)).isTrue();
                }
            } finally {
                server.stop(Duration.ofSeconds(10));
            }
        }
    }
}
