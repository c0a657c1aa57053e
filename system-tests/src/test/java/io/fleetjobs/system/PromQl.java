package io.fleetjobs.system;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The metric names a PromQL expression reads: identifiers that are not functions (followed by {@code (}),
 * keywords, label names (in {@code {...}} matchers or {@code by/without/on/ignoring/group_*} lists),
 * durations or Grafana variables. Enough for the expressions of our dashboards and alert rules, not a parser.
 */
final class PromQl {
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "bool", "offset", "inf", "nan", "atan2");
    private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGES = Pattern.compile("\\[[^]]*]");
    private static final Pattern LABEL_LISTS = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern VARIABLES = Pattern.compile("\\$\\{?[A-Za-z_][A-Za-z0-9_]*}?");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_:][A-Za-z0-9_:]*");

    private PromQl() {
    }

    static Set<String> metricNames(String expr) {
        String s = STRINGS.matcher(expr).replaceAll(" ");
        s = MATCHERS.matcher(s).replaceAll(" ");
        s = RANGES.matcher(s).replaceAll(" ");
        s = LABEL_LISTS.matcher(s).replaceAll(" ");
        s = VARIABLES.matcher(s).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String name = m.group();
            if (m.start() > 0 && Character.isDigit(s.charAt(m.start() - 1))) {
                continue; // the exponent or unit of a number: 1e3, 5m
            }
            int next = m.end();
            while (next < s.length() && Character.isWhitespace(s.charAt(next))) {
                next++;
            }
            if ((next < s.length() && s.charAt(next) == '(') || KEYWORDS.contains(name.toLowerCase())) {
                continue;
            }
            names.add(name);
        }
        return names;
    }

    /** The metric families a {@code /actuator/prometheus} page exposes (each sample's name). */
    static Set<String> exposed(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = IDENTIFIER.matcher(line);
            if (m.lookingAt()) {
                names.add(m.group());
            }
        }
        return names;
    }

    /** Every {@code "expr"} of a Grafana dashboard's panels, in the order they appear. */
    static List<String> dashboardExpressions(JsonNode dashboard) {
        List<String> exprs = new ArrayList<>();
        collect(dashboard, exprs);
        return exprs;
    }

    private static void collect(JsonNode node, List<String> exprs) {
        if (node.isObject()) {
            node.properties().forEach(e -> {
                if (e.getKey().equals("expr") && e.getValue().isString()) {
                    exprs.add(e.getValue().asString());
                } else {
                    collect(e.getValue(), exprs);
                }
            });
        } else if (node.isArray()) {
            node.forEach(child -> collect(child, exprs));
        }
    }
}
