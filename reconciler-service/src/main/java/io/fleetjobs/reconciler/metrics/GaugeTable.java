package io.fleetjobs.reconciler.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One gauge name with a row per tag set, set as a whole from a query: a row the query no longer returns
 * reads 0 (rather than vanishing), so a queue that empties shows 0 and a rate over it stays defined.
 * Tag sets are few (queues, regions, GPU types, statuses), never ids.
 */
final class GaugeTable {
    private final String name;
    private final String description;
    private final MeterRegistry meters;
    private final Map<Tags, AtomicLong> rows = new ConcurrentHashMap<>();

    GaugeTable(String name, String description, MeterRegistry meters) {
        this.name = name;
        this.description = description;
        this.meters = meters;
    }

    /** Replaces every row's value: those in {@code values}, and 0 for the others seen before. */
    void set(Map<Tags, Double> values) {
        rows.forEach((tags, value) -> {
            if (!values.containsKey(tags)) {
                value.set(Double.doubleToLongBits(0));
            }
        });
        values.forEach((tags, value) -> rows.computeIfAbsent(tags, t -> {
            AtomicLong bits = new AtomicLong(Double.doubleToLongBits(0));
            Gauge.builder(name, bits, b -> Double.longBitsToDouble(b.get())).tags(t).description(description)
                    .register(meters);
            return bits;
        }).set(Double.doubleToLongBits(value)));
    }
}
