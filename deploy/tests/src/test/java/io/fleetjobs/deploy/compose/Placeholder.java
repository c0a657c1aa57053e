package io.fleetjobs.deploy.compose;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A Spring placeholder, {@code ${name:default}}, whose default may be another placeholder
 * ({@code ${JOBS_SCHEDULER_URL:${JOBS_SCHEDULER_SERVICE_URL:http://localhost:8082}}}): {@link #names} is the
 * whole chain, {@link #fallback} the innermost default ({@code null} where the chain ends without one).
 */
record Placeholder(List<String> names, String fallback) {

    /** Every outermost placeholder in {@code text}, in order. */
    static List<Placeholder> findAll(String text) {
        List<Placeholder> found = new ArrayList<>();
        int from = 0;
        while (true) {
            int start = text.indexOf("${", from);
            if (start < 0) {
                return found;
            }
            int end = matchingBrace(text, start + 1);
            if (end < 0) {
                return found;
            }
            found.add(parse(text.substring(start + 2, end)));
            from = end + 1;
        }
    }

    private static Placeholder parse(String body) {
        int colon = topLevelColon(body);
        String name = (colon < 0 ? body : body.substring(0, colon)).strip();
        String fallback = colon < 0 ? null : body.substring(colon + 1);
        List<String> names = new ArrayList<>(List.of(name));
        if (fallback != null && fallback.startsWith("${") && matchingBrace(fallback, 1) == fallback.length() - 1) {
            Placeholder inner = parse(fallback.substring(2, fallback.length() - 1));
            names.addAll(inner.names());
            fallback = inner.fallback();
        }
        return new Placeholder(List.copyOf(names), fallback);
    }

    /** Whether a container must be given one of the names: no default, an empty one, or one that means this host. */
    boolean requiredInContainer() {
        return fallback == null || fallback.isBlank() || fallback.contains("localhost") || fallback.contains("127.0.0.1");
    }

    /** Whether the chain names an environment variable outright (upper case), not only a property. */
    boolean namesEnvironmentVariable() {
        return names.stream().anyMatch(Placeholder::isEnvironmentName);
    }

    /** The environment variables that set one of the names (a property name in its relaxed forms). */
    List<String> environmentNames() {
        return names.stream().flatMap(n -> environmentForms(n).stream()).distinct().toList();
    }

    static boolean isEnvironmentName(String name) {
        return name.matches("[A-Z][A-Z0-9_]*");
    }

    /**
     * The environment variables Spring's relaxed binding maps to a property: {@code jobs.worker.scheduler-url} is
     * set by {@code JOBS_WORKER_SCHEDULERURL} (the canonical form) and {@code JOBS_WORKER_SCHEDULER_URL}.
     */
    static List<String> environmentForms(String name) {
        if (isEnvironmentName(name)) {
            return List.of(name);
        }
        String upper = name.toUpperCase(Locale.ROOT).replace('.', '_');
        return List.of(upper.replace("-", ""), upper.replace('-', '_')).stream().distinct().toList();
    }

    private static int matchingBrace(String text, int open) {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static int topLevelColon(String body) {
        int depth = 0;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}') {
                depth--;
            } else if (c == ':' && depth == 0) {
                return i;
            }
        }
        return -1;
    }
}
