package io.fleetjobs.jobservice.api;

import java.util.List;
import org.springframework.beans.TypeMismatchException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonPointer;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/** Every error as RFC 9457 problem+json; validation errors list each field at fault. */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {

    @ExceptionHandler(ApiException.class)
    ResponseEntity<ProblemDetail> api(ApiException e) {
        ResponseEntity<ProblemDetail> response = problem(e.status(), e.getMessage(), e.errors());
        if (e.retryAfterSeconds() == null) {
            return response;
        }
        return ResponseEntity.status(response.getStatusCode())
                .headers(h -> h.add(HttpHeaders.RETRY_AFTER, Long.toString(e.retryAfterSeconds())))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(response.getBody());
    }

    /** The database cannot be reached: nothing was written; the caller may try again shortly. */
    @ExceptionHandler({DataAccessResourceFailureException.class,
            CannotCreateTransactionException.class})
    ResponseEntity<ProblemDetail> databaseDown(RuntimeException e) {
        ResponseEntity<ProblemDetail> response = problem(HttpStatus.SERVICE_UNAVAILABLE,
                "the database is unreachable; try again shortly", List.of());
        return ResponseEntity.status(response.getStatusCode()).headers(h -> h.add(HttpHeaders.RETRY_AFTER, "2"))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(response.getBody());
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        Throwable cause = e.getCause();
        ApiException.FieldError error;
        if (cause instanceof InvalidFormatException f && f.getValue() instanceof String s && NoNulStrings.hasNul(s)) {
            error = new ApiException.FieldError(FieldPaths.of(f.getPath()), NoNulStrings.MESSAGE);
        } else if (cause instanceof UnrecognizedPropertyException u) {
            error = new ApiException.FieldError(FieldPaths.of(u.getPath()), "unknown field");
        } else if (cause instanceof MismatchedInputException m && !m.getPath().isEmpty()) {
            error = new ApiException.FieldError(FieldPaths.of(m.getPath()), "has the wrong type or format");
        } else if (cause instanceof MismatchedInputException) {
            // the whole body is of the wrong kind ([], "x", 42): said without the server's own type names
            error = new ApiException.FieldError("body", "must be a JSON object");
        } else if (cause instanceof InputCoercionException c && !c.getPath().isEmpty()) {
            error = new ApiException.FieldError(FieldPaths.of(c.getPath()),
                    "is out of range: " + firstLine(c.getOriginalMessage()));
        } else if (cause instanceof StreamReadException r && duplicated(r) != null) {
            error = new ApiException.FieldError(duplicated(r), "is given twice");
        } else if (cause instanceof StreamReadException) {
            error = new ApiException.FieldError("body", "is not well-formed JSON: " + firstLine(cause.getMessage()));
        } else if (cause instanceof JacksonException j) {
            error = new ApiException.FieldError(FieldPaths.of(j.getPath()), "cannot be read: " + firstLine(j.getOriginalMessage()));
        } else {
            error = new ApiException.FieldError("body", "is missing or unreadable");
        }
        return ResponseEntity.badRequest().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem(HttpStatus.BAD_REQUEST, "the request is not valid", List.of(error)).getBody());
    }

    /**
     * The field a body gives twice in one object ({@code StreamReadFeature.STRICT_DUPLICATE_DETECTION}), named as the
     * request spells it ({@code resources.cpu}); null for any other fault of the JSON.
     */
    private static String duplicated(StreamReadException e) {
        if (!String.valueOf(e.getOriginalMessage()).startsWith("Duplicate Object property")
                || !(e.processor() instanceof JsonParser parser)) {
            return null;
        }
        StringBuilder path = new StringBuilder();
        for (JsonPointer at = parser.streamReadContext().pathAsPointer(); !at.matches(); at = at.tail()) {
            if (at.mayMatchElement()) {
                path.append('[').append(at.getMatchingIndex()).append(']');
            } else {
                path.append(path.isEmpty() ? "" : ".").append(at.getMatchingProperty());
            }
        }
        return path.isEmpty() ? null : path.toString();
    }

    /** A query parameter or a part of the path that is not of its type ({@code limit=abc}, an attempt number too big). */
    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException e,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String field = e instanceof MethodArgumentTypeMismatchException m
                ? m.getName() : e.getPropertyName();
        return ResponseEntity.badRequest().contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem(HttpStatus.BAD_REQUEST, "the request is not valid", List.of(new ApiException.FieldError(
                        field == null ? "request" : field, "has the wrong type or format"))).getBody());
    }

    static ResponseEntity<ProblemDetail> problem(HttpStatus status, String detail, List<ApiException.FieldError> errors) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        if (!errors.isEmpty()) {
            problem.setProperty("errors", errors);
        }
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
