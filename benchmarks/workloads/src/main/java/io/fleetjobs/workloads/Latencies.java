package io.fleetjobs.workloads;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/** Latencies in microseconds up to ten minutes, three significant digits (HdrHistogram), shown in milliseconds. */
final class Latencies {
    private final Histogram histogram = new ConcurrentHistogram(600_000_000L, 3);

    void recordNanos(long nanos) {
        recordMicros(Math.max(0, nanos / 1_000));
    }

    void recordMicros(long micros) {
        histogram.recordValue(Math.min(Math.max(0, micros), histogram.getHighestTrackableValue()));
    }

    long count() {
        return histogram.getTotalCount();
    }

    double percentileMillis(double percentile) {
        return count() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1_000.0;
    }

    double maxMillis() {
        return count() == 0 ? Double.NaN : histogram.getMaxValue() / 1_000.0;
    }
}
