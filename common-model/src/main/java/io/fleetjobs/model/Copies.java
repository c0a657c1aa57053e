package io.fleetjobs.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Immutable copies that, unlike {@code List.copyOf}, keep null elements, so that a bad element
 * reaches validation (and a clear field error) instead of failing inside a constructor. Maps are
 * sorted by key, so that equal specs serialise to equal bytes.
 */
final class Copies {
    private Copies() {
    }

    static <T> List<T> list(List<T> list, List<T> fallback) {
        return list == null ? fallback : Collections.unmodifiableList(new ArrayList<>(list));
    }

    static <V> Map<String, V> map(Map<String, V> map) {
        return map == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(map));
    }
}
