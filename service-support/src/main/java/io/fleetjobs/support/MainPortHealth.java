package io.fleetjobs.support;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Arrays;
import org.springframework.boot.actuate.endpoint.ApiVersion;
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
 * {@code GET /actuator/health} (and its groups, {@code /actuator/health/liveness}, {@code /readiness}) on the main
 * port, without a token, as the contract says, while every actuator endpoint (health included) lives on the
 * management port ({@code management.server.port}). It answers what the health endpoint answers there, status code
 * included (503 when down). Spring Boot's own additional paths ({@code server:/...}) take a single segment only, so
 * they cannot keep {@code /actuator/health/readiness}. Nothing else of the actuator is on the main port.
 */
@RestController
public class MainPortHealth {
    static final String PATH = "/actuator/health";
    private final HealthEndpointWebExtension health;

    public MainPortHealth(HealthEndpointWebExtension health) {
        this.health = health;
    }

    @GetMapping(path = {PATH, PATH + "/**"}, produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<HealthDescriptor> health(HttpServletRequest request) {
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
