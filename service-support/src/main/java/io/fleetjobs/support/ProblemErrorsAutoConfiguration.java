package io.fleetjobs.support;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link ProblemErrors} in every service, before Spring Boot's own error controller (which then backs off), and
 * {@link ProblemErrorValve} as the error report of the service's Tomcat host.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
public class ProblemErrorsAutoConfiguration {
    @Bean
    ProblemErrors problemErrors() {
        return new ProblemErrors();
    }

    /** Only where the service runs on Tomcat. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory")
    static class OnTomcat {
        @Bean
        WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorValve() {
            // the host reads the class when it starts, after the contexts are prepared, and adds it innermost
            return factory -> factory.addContextCustomizers(context -> {
                if (context.getParent() instanceof StandardHost host) {
                    host.setErrorReportValveClass(ProblemErrorValve.class.getName());
                }
            });
        }
    }
}
