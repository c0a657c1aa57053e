package io.fleetjobs.jobservice;

import io.fleetjobs.support.ApiPaths;
import io.fleetjobs.support.ServiceName;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** This service is job-service: it admits identities the gateway signed for it, and no other. */
@Configuration(proxyBeanMethods = false)
class Audience {
    @Bean
    ServiceName serviceName() {
        return new ServiceName(ApiPaths.JOB_SERVICE);
    }
}
