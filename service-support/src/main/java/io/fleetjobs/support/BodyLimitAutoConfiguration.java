package io.fleetjobs.support;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * The {@link BodyLimitFilter} on every path of every servlet service, first of all filters (before the
 * {@link IdentityFilter} and anything that authenticates or parses): {@code jobs.http.max-body-bytes} (default
 * 1 MiB). The gateway, whose front door applies the same limit to {@code /api} and keeps the body it read for
 * forwarding, turns it off with {@code jobs.http.body-limit=false}.
 */
@AutoConfiguration
@ConditionalOnClass(name = "jakarta.servlet.Filter")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(name = "jobs.http.body-limit", havingValue = "true", matchIfMissing = true)
public class BodyLimitAutoConfiguration {
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    BodyLimitFilter bodyLimitFilter(Environment env) {
        return new BodyLimitFilter(env.getProperty("jobs.http.max-body-bytes", Long.class,
                BodyLimitFilter.DEFAULT_MAX_BODY_BYTES));
    }
}
