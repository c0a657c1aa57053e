package io.fleetjobs.deploy.k8s;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** Plain YAML: parsing (safe constructor only) and walking the maps and lists SnakeYAML gives. */
final class Yamls {
    private Yamls() {
    }

    /** Every non-empty document of a multi-document YAML text, each a map. */
    static List<Map<String, Object>> documents(String text) {
        List<Map<String, Object>> documents = new ArrayList<>();
        for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(text)) {
            if (document == null) {
                continue;
            }
            if (!(document instanceof Map<?, ?>)) {
                throw new IllegalArgumentException("a YAML document that is not a mapping: " + document);
            }
            documents.add(asMap(document));
        }
        return documents;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> asList(Object o) {
        return o instanceof List<?> l ? (List<Object>) l : List.of();
    }

    static Object at(Object root, String... path) {
        Object current = root;
        for (String step : path) {
            if (!(current instanceof Map<?, ?> m)) {
                return null;
            }
            current = m.get(step);
        }
        return current;
    }

    static Map<String, Object> map(Object root, String... path) {
        return asMap(at(root, path));
    }

    static List<Map<String, Object>> maps(Object root, String... path) {
        return asList(at(root, path)).stream().map(Yamls::asMap).toList();
    }

    /** The value as a string (numbers and booleans too), or null. */
    static String string(Object root, String... path) {
        Object value = at(root, path);
        return value == null ? null : String.valueOf(value);
    }

    /** A map of strings (labels, selectors, ConfigMap data), values written as strings. */
    static Map<String, String> strings(Object root, String... path) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        map(root, path).forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }
}
