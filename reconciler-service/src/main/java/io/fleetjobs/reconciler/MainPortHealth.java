package io.fleetjobs.reconciler;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Arrays;
import org.springframework.boot.actuate.autoconfigure.web.server.ConditionalOnManagementPort;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.ApiVersion;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointWebExtension;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /actuator/health} (and {@code /liveness}, {@code /readiness}) on the main port, as the other services
 * have it from service-support's {@code io.fleetjobs.support.MainPortHealth} (the reconciler does not use
 * service-support, whose signed identity would need a secret it has no use for): the actuator itself is on the
 * management port.
 */
@RestController("reconcilerMainPortHealth")
@ConditionalOnManagementPort(ManagementPortType.DIFFERENT)
// where service-support is on the class path too (system-tests run every service in one JVM), its auto-configured
// MainPortHealth answers instead
@ConditionalOnMissingClass("io.fleetjobs.support.MainPortHealth")
class MainPortHealth {
    private static final String PATH = "/actuator/health";
    private final HealthEndpointWebExtension health;

    MainPortHealth(HealthEndpointWebExtension health) {
        this.health = health;
    }

    @GetMapping(path = {PATH, PATH + "/**"}, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<HealthDescriptor> health(HttpServletRequest request) {
        String uri = request.getRequestURI().substring(request.getContextPath().length());
        String[] path = uri.length() <= PATH.length() ? new String[0]
                : Arrays.stream(uri.substring(PATH.length()).split("/")).filter(s -> !s.isEmpty()).toArray(String[]::new);
        WebEndpointResponse<HealthDescriptor> answer =
                health.health(ApiVersion.LATEST, WebServerNamespace.SERVER, SecurityContext.NONE, path);
        if (answer.getBody() == null) {
            return ResponseEntity.status(answer.getStatus()).build();
        }
        return ResponseEntity.status(answer.getStatus()).contentType(MediaType.APPLICATION_JSON).body(answer.getBody());
    }
}
