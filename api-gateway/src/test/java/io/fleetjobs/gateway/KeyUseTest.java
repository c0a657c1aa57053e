package io.fleetjobs.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.store.ApiKeyStore;
import io.fleetjobs.store.Principal;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.testsupport.SettableClock;
import io.fleetjobs.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/** When a key was last used: noted at most once a minute per key, written in a batch, on the real store. */
class KeyUseTest {
    private static final HikariDataSource DATA = TestDatabases.create().dataSource(2);
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    private final SettableClock clock = new SettableClock(T0);
    private final JdbcClient jdbc = JdbcClient.create(DATA);
    private final TenantStore tenants = new TenantStore(jdbc, clock);
    private final ApiKeyStore store = new ApiKeyStore(jdbc);
    private final KeyUse use = new KeyUse(store, clock, Duration.ofMinutes(1));

    @AfterAll
    static void stop() {
        DATA.close();
    }

    @Test
    void aKeyUsedOftenIsWrittenAtMostOnceAMinuteAndOnlyAtAFlush() {
        UUID tenant = tenants.create("uses-" + UUID.randomUUID(), 1, null, null, null).orElseThrow().id();
        var key = tenants.issueKey(tenant, Principal.Role.USER);
        var other = tenants.issueKey(tenant, Principal.Role.USER);
        ApiKeys keys = new ApiKeys(tenants::authenticate, clock, Duration.ofSeconds(5), 20, use::used);

        keys.authenticate(key.key(), "10.0.0.1");
        clock.advance(Duration.ofSeconds(10));
        keys.authenticate(key.key(), "10.0.0.1"); // from the cache: noted already, not again
        assertThat(lastUsed(tenant, key.id())).as("nothing written on the request's path").isNull();
        assertThat(use.flush()).isEqualTo(1);
        assertThat(lastUsed(tenant, key.id())).isEqualTo(T0);
        assertThat(lastUsed(tenant, other.id())).as("never used").isNull();
        assertThat(use.flush()).as("nothing new").isZero();

        clock.advance(Duration.ofSeconds(51)); // a minute after the first use
        keys.authenticate(key.key(), "10.0.0.1");
        keys.authenticate(other.key(), "10.0.0.1");
        keys.authenticate("fj_not-a-key", "10.0.0.1");
        assertThat(use.flush()).isEqualTo(2);
        assertThat(lastUsed(tenant, key.id())).isEqualTo(T0.plusSeconds(61));
        assertThat(lastUsed(tenant, other.id())).isEqualTo(T0.plusSeconds(61));
    }

    private Instant lastUsed(UUID tenant, UUID keyId) {
        return store.list(tenant).stream().filter(k -> k.id().equals(keyId)).findFirst().orElseThrow().lastUsedAt();
    }
}
