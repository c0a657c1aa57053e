package io.fleetjobs.support;

import java.time.InstantSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * Every servlet service admits to {@code /api/**} only the identity the gateway signed: a
 * {@link SignedIdentity} from {@code jobs.internal-secret} (or {@code JOBS_INTERNAL_SECRET}) and the
 * {@link IdentityFilter}. Without a secret (or with one shorter than 16 characters) the service refuses to start.
 * The gateway, which signs rather than verifies, turns the filter off with
 * {@code jobs.internal-identity.verify=false}; a service with no API of its own (the reconciler) turns it all off with
 * {@code jobs.internal-identity.enabled=false}.
 */
@AutoConfiguration
@ConditionalOnProperty(name = "jobs.internal-identity.enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnClass(name = "jakarta.servlet.Filter")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class IdentityAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean
    SignedIdentity signedIdentity(Environment env) {
        String secret = env.resolvePlaceholders("${jobs.internal-secret:${JOBS_INTERNAL_SECRET:}}");
        if (secret.isBlank() || secret.length() < SignedIdentity.MIN_SECRET_LENGTH) {
            // no default secret anywhere: a service that would trust (or sign) identities with none refuses to start
            throw new IllegalStateException("set JOBS_INTERNAL_SECRET (jobs.internal-secret) to a secret of at least "
                    + SignedIdentity.MIN_SECRET_LENGTH + " characters shared by the gateway and the services (it is "
                    + (secret.isBlank() ? "unset" : secret.length() + " characters") + "); docker compose and "
                    + "bin/run-local generate one on first start");
        }
        return new SignedIdentity(secret, InstantSource.system());
    }

    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE + 10)
    @ConditionalOnProperty(name = "jobs.internal-identity.verify", havingValue = "true", matchIfMissing = true)
    IdentityFilter identityFilter(SignedIdentity identities, Environment env,
            ObjectProvider<ServiceName> name) {
        return new IdentityFilter(identities, name.getIfAvailable(
                () -> new ServiceName(env.getProperty("spring.application.name", "unnamed"))).value());
    }
}
