package io.fleetjobs.model;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A bound on the values a user chooses (queue names) before they become metric tags: the first {@code max}
 * distinct values seen are tags of their own, every later one is reported as {@link #OTHER}. A tenant inventing
 * a queue name per job would otherwise grow every registry and the time-series database without end. What was
 * admitted stays admitted for the life of the process (a series does not change its name midway). Thread-safe.
 */
public final class BoundedTagValues {
    /** The tag value for every value past the bound. */
    public static final String OTHER = "other";
    public static final int DEFAULT_MAX = 50;

    private final int max;
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();

    public BoundedTagValues(int max) {
        if (max < 0) {
            throw new IllegalArgumentException("at most 0 or more distinct tag values: " + max);
        }
        this.max = max;
    }

    /** {@code value} itself while it is among the first {@code max} distinct values, else {@link #OTHER}. */
    public String tag(String value) {
        if (value == null) {
            return OTHER;
        }
        if (admitted.contains(value)) {
            return value;
        }
        synchronized (admitted) {
            if (admitted.contains(value) || admitted.size() < max && admitted.add(value)) {
                return value;
            }
        }
        return OTHER;
    }
}
