package io.fleetjobs.jobservice.api;

import java.util.List;
import org.springframework.http.HttpStatus;

/** An answer other than success, rendered as problem+json by {@link ProblemHandler}. */
public class ApiException extends RuntimeException {
    private final HttpStatus status;
    private final List<FieldError> errors;
    private final Long retryAfterSeconds;

    public ApiException(HttpStatus status, String detail, List<FieldError> errors) {
        this(status, detail, errors, null);
    }

    private ApiException(HttpStatus status, String detail, List<FieldError> errors, Long retryAfterSeconds) {
        super(detail);
        this.status = status;
        this.errors = errors;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** 429 with {@code Retry-After}: the caller may try again after that many seconds. */
    public static ApiException tooManyRequests(String detail, long retryAfterSeconds) {
        return new ApiException(HttpStatus.TOO_MANY_REQUESTS, detail, List.of(), retryAfterSeconds);
    }

    public static ApiException badRequest(String field, String message) {
        return new ApiException(HttpStatus.BAD_REQUEST, "the request is not valid", List.of(new FieldError(field, message)));
    }

    public static ApiException invalid(List<FieldError> errors) {
        return new ApiException(HttpStatus.BAD_REQUEST, "the request is not valid", errors);
    }

    public static ApiException notFound(String what) {
        return new ApiException(HttpStatus.NOT_FOUND, what + " not found", List.of());
    }

    public static ApiException conflict(String detail) {
        return new ApiException(HttpStatus.CONFLICT, detail, List.of());
    }

    public HttpStatus status() {
        return status;
    }

    public List<FieldError> errors() {
        return errors;
    }

    /** Seconds for {@code Retry-After}, or null for none. */
    public Long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** One field at fault: a JSON path into the request ({@code resources.cpu}, {@code execution.command[0]}). */
    public record FieldError(String field, String message) {
    }
}
