package io.fleetjobs.support;

import org.springframework.boot.actuate.autoconfigure.web.server.ConditionalOnManagementPort;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointWebExtension;
import org.springframework.context.annotation.Bean;

/**
 * {@link MainPortHealth} wherever the actuator has a port of its own ({@code management.server.port}, which carries
 * prometheus, metrics and info): health stays on the main port too, nothing else does.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration"})
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnManagementPort(ManagementPortType.DIFFERENT)
public class MainPortHealthAutoConfiguration {
    @Bean
    @ConditionalOnBean(HealthEndpointWebExtension.class)
    MainPortHealth mainPortHealth(HealthEndpointWebExtension health) {
        return new MainPortHealth(health);
    }
}
