package io.fleetjobs.support;

/**
 * The name a service is known by to the gateway: the audience an identity must have been signed for
 * ({@link ApiPaths}). A bean of each service; where none is declared, {@code spring.application.name}.
 */
public record ServiceName(String value) {
}
