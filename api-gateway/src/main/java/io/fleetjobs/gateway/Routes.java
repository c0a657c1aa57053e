package io.fleetjobs.gateway;

import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;
import static org.springframework.web.servlet.function.RequestPredicates.path;

import java.net.URI;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Where each path goes (Spring Cloud Gateway Server WebMVC). A service that cannot be reached is
 * 503 with {@code Retry-After}: nothing was done, the caller may try again.
 *
 * <pre>
 *   /api/v1/jobs/**, /api/v1/admin/**,
 *   /api/v1/webhooks/**,
 *   /api/v1/events/**, /api/v1/activity,
 *   /api/v1/tenant                      job-service        (JOBS_JOB_SERVICE_URL)
 *   /api/v1/machines/**                 scheduler-service  (JOBS_SCHEDULER_URL)
 * </pre>
 *
 * Answers of type {@code text/event-stream} (live events) are passed on as they come, flushed after each read
 * (the gateway's {@code streaming-media-types}); the services write a heartbeat within the client read timeout.
 *
 * The OpenAPI document is the gateway's own: the whole contract, {@code api/openapi.yaml} (see {@link Contract}).
 */
@Configuration(proxyBeanMethods = false)
class Routes {
    @Bean
    RouterFunction<ServerResponse> jobService(GatewayProperties properties) {
        return route("job-service")
                .route(path("/api/v1/jobs/**").or(path("/api/v1/admin/**")).or(path("/api/v1/webhooks/**"))
                        .or(path("/api/v1/events/**")).or(path("/api/v1/activity")).or(path("/api/v1/tenant")), http())
                .before(uri(properties.jobServiceUrl()))
                .onError(ResourceAccessException.class, (e, request) -> unavailable("job-service"))
                .build();
    }

    @Bean
    RouterFunction<ServerResponse> schedulerService(GatewayProperties properties) {
        return route("scheduler-service")
                .route(path("/api/v1/machines/**"), http())
                .before(uri(properties.schedulerUrl()))
                .onError(ResourceAccessException.class, (e, request) -> unavailable("scheduler-service"))
                .build();
    }

    private static ServerResponse unavailable(String service) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, service + " cannot be reached; try again shortly");
        problem.setType(URI.create("about:blank"));
        return ServerResponse.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }
}
