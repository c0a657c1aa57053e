package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.migrations.Migrate;
import io.fleetjobs.store.Principal;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.testsupport.SettableClock;
import io.fleetjobs.testsupport.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Whether the gateway can check keys yet, on a real PostgreSQL whose schema comes later (as when the
 * platform starts): when it becomes ready, what it installs, how often it tries.
 */
class KeyStoreReadinessTest {
    private static final String TOKEN = "fj_bootstrap-readiness-test";

    private final SettableClock clock = SettableClock.atNow();
    private HikariDataSource dataSource;

    @AfterEach
    void close() {
        if (dataSource != null) {
            dataSource.close();
        }
    }

    /** A new database as it is before db-migrations (or job-service) has run: no tables at all. */
    static TestDatabases.Database withoutSchema() {
        TestDatabases.Database db = TestDatabases.create();
        try (HikariDataSource ds = db.dataSource(1)) {
            dropSchema(ds);
        }
        return db;
    }

    static void dropSchema(DataSource ds) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute("drop schema public cascade");
            st.execute("create schema public");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private TenantStore store() {
        dataSource = withoutSchema().dataSource(2);
        return new TenantStore(JdbcClient.create(dataSource), clock);
    }

    @Test
    void withTheTokenItIsReadyOnceItHasInstalledTheKeyItselfAndStaysReady() {
        TenantStore tenants = store();
        KeyStoreReadiness readiness = new KeyStoreReadiness(tenants, TOKEN, clock);
        assertThat(readiness.ready()).isFalse();
        Health starting = readiness.health();
        assertThat(starting.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(String.valueOf(starting.getDetails().get("reason"))).contains("does not answer yet", "tenants");

        Migrate.apply(dataSource);
        clock.advance(KeyStoreReadiness.RETRY_EVERY);
        assertThat(readiness.ready()).isTrue();
        assertThat(readiness.health().getStatus()).isEqualTo(Status.UP);
        assertThat(tenants.authenticate(TOKEN)).as("installed by the gateway, no job-service involved")
                .hasValueSatisfying(p -> {
                    assertThat(p.tenantName()).isEqualTo(KeyStoreReadiness.BOOTSTRAP_TENANT);
                    assertThat(p.role()).isEqualTo(Principal.Role.ADMIN);
                });
        assertThat(new KeyStoreReadiness(tenants, TOKEN, clock).ready()).as("installing it again (job-service, "
                + "another gateway) is harmless").isTrue();

        dropSchema(dataSource);
        clock.advance(Duration.ofMinutes(1));
        assertThat(readiness.ready()).as("a later failure is the key lookup's 503, not readiness").isTrue();
    }

    @Test
    void withoutATokenTheSchemaIsEnoughAndNothingIsInstalled() {
        TenantStore tenants = store();
        KeyStoreReadiness readiness = new KeyStoreReadiness(tenants, " ", clock);
        assertThat(readiness.ready()).isFalse();
        Migrate.apply(dataSource);
        clock.advance(KeyStoreReadiness.RETRY_EVERY);
        assertThat(readiness.ready()).isTrue();
        assertThat(tenants.byName(KeyStoreReadiness.BOOTSTRAP_TENANT)).isEmpty();
    }

    @Test
    void itTriesAgainAtMostOncePerSecondByTheClock() {
        TenantStore tenants = store();
        KeyStoreReadiness readiness = new KeyStoreReadiness(tenants, TOKEN, clock);
        assertThat(readiness.ready()).isFalse();
        Migrate.apply(dataSource);
        assertThat(readiness.ready()).as("the schema is there now, but the last try is not a second old").isFalse();
        clock.advance(KeyStoreReadiness.RETRY_EVERY.minusMillis(1));
        assertThat(readiness.health().getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(tenants.byName(KeyStoreReadiness.BOOTSTRAP_TENANT)).as("no try, so no install").isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(readiness.ready()).isTrue();
    }

    @Test
    void aDatabaseThatCannotBeReachedIsNotReadyAndThrowsNothing() {
        DriverManagerDataSource nowhere = new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/jobs", "jobs", "jobs");
        KeyStoreReadiness readiness = new KeyStoreReadiness(new TenantStore(JdbcClient.create(nowhere), clock), TOKEN, clock);
        assertThat(readiness.ready()).isFalse();
        Health health = readiness.health();
        assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(health.getDetails()).containsKey("reason");
    }
}
