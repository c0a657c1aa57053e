package io.fleetjobs.jobservice.api;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;

/** Names fields at fault the way the request spells them: {@code retry.retryOnExitCodes[1]}, {@code execution.env[X]}. */
final class FieldPaths {
    private FieldPaths() {
    }

    static String of(ConstraintViolation<?> violation) {
        StringBuilder path = new StringBuilder();
        for (Path.Node node : violation.getPropertyPath()) {
            if (node.isInIterable()) {
                path.append('[').append(node.getIndex() != null ? node.getIndex() : node.getKey()).append(']');
            }
            if (node.getKind() == ElementKind.PROPERTY && node.getName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(node.getName());
            }
        }
        return path.toString();
    }

    static String of(List<JacksonException.Reference> references) {
        StringBuilder path = new StringBuilder();
        for (JacksonException.Reference ref : references) {
            if (ref.getPropertyName() != null && ref.from() instanceof Map) {
                path.append('[').append(ref.getPropertyName()).append(']'); // a map's key, as validation names it
            } else if (ref.getPropertyName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(ref.getPropertyName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.isEmpty() ? "body" : path.toString();
    }
}
