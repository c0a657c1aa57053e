package io.fleetjobs.support;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * What a service answers for a request that failed outside its handlers (an exception none of them took, a query
 * whose escapes cannot be decoded, a path nothing maps): RFC 9457 problem+json, as every other error of the API, in
 * place of Spring Boot's own error body ({@code timestamp}, {@code status}, {@code error}, {@code path}). A server
 * error says only that it happened: the exception is in the service's log, not in the answer.
 */
@RestController
public class ProblemErrors implements ErrorController {

    @RequestMapping("${server.error.path:${error.path:/error}}")
    ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
        HttpStatus status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code
                && HttpStatus.resolve(code) != null ? HttpStatus.resolve(code) : HttpStatus.INTERNAL_SERVER_ERROR;
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail(status));
        if (request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI) instanceof String path) {
            try {
                problem.setInstance(URI.create(path));
            } catch (IllegalArgumentException notAUri) {
                // the path is what could not be read: the answer goes without it
            }
        }
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    static String detail(HttpStatus status) {
        if (status.is5xxServerError()) {
            return "the service could not answer; try again, and tell its operators if it goes on";
        }
        if (status == HttpStatus.BAD_REQUEST) {
            return "the request cannot be read: its body, path, query or headers are malformed";
        }
        return status.getReasonPhrase();
    }
}
