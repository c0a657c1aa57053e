package io.fleetjobs.support;

import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * {@link IdentityFilter}. Without a secret the service starts, warns, and answers 401 to every API call.
 * The gateway, which signs rather than verifies, turns the filter off with
 * {@code jobs.internal-identity.verify=false}.
 */
@AutoConfiguration
@ConditionalOnClass(name = "jakarta.servlet.Filter")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class IdentityAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(IdentityAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    SignedIdentity signedIdentity(Environment env) {
        String secret = env.resolvePlaceholders("${jobs.internal-secret:${JOBS_INTERNAL_SECRET:}}");
        SignedIdentity identities = new SignedIdentity(secret, InstantSource.system());
        if (!identities.hasSecret()) {
            log.warn("no internal secret (JOBS_INTERNAL_SECRET): every /api call will be refused");
        }
        return identities;
    }

    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE + 10)
    @ConditionalOnProperty(name = "jobs.internal-identity.verify", havingValue = "true", matchIfMissing = true)
    IdentityFilter identityFilter(SignedIdentity identities, Environment env,
            org.springframework.beans.factory.ObjectProvider<ServiceName> name) {
        return new IdentityFilter(identities, name.getIfAvailable(
                () -> new ServiceName(env.getProperty("spring.application.name", "unnamed"))).value());
    }
}
