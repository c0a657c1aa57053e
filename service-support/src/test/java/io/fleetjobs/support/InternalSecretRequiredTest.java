package io.fleetjobs.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.AbstractEnvironment;
import org.springframework.core.env.MapPropertySource;

/** No default secret anywhere: a service without one (or with a short one) refuses to start, naming the setting. */
class InternalSecretRequiredTest {
    private static AbstractEnvironment with(Map<String, Object> properties) {
        AbstractEnvironment env = new AbstractEnvironment() {
        };
        env.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return env;
    }

    @Test
    void aServiceWithoutASecretRefusesToStart() {
        assertThatThrownBy(() -> new IdentityAutoConfiguration().signedIdentity(with(Map.of())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("JOBS_INTERNAL_SECRET")
                .hasMessageContaining("unset");
    }

    @Test
    void aShortSecretIsRefusedToo() {
        assertThatThrownBy(() -> new IdentityAutoConfiguration().signedIdentity(with(Map.of("jobs.internal-secret", "jobs"))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("4 characters");
    }

    @Test
    void aLongEnoughSecretSigns() {
        SignedIdentity identities = new IdentityAutoConfiguration()
                .signedIdentity(with(Map.of("JOBS_INTERNAL_SECRET", "a-secret-of-enough-length")));
        assertThat(identities.hasSecret()).isTrue();
    }
}
