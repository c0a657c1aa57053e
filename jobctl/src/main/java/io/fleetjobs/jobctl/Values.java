package io.fleetjobs.jobctl;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The values people type: durations ({@code 90s}, {@code 10m}, {@code 1h}, {@code 500ms}) and sizes ({@code 512}, {@code 4Gi}). */
final class Values {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)?");
    private static final Pattern SIZE = Pattern.compile("(\\d+)(Mi|M|Gi|G|Ti|T)?");

    private Values() {
    }

    static Duration duration(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            try {
                return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw new TypeConversionException("'" + text + "' is not a duration (90s, 10m, 1h, 500ms)");
            }
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2) == null ? "s" : m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            case "d" -> Duration.ofDays(n);
            default -> Duration.ofSeconds(n);
        };
    }

    /** Mebibytes: a plain number is MiB already; M and Mi, G and Gi, T and Ti mean the same powers of 1024. */
    static long mebibytes(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new TypeConversionException("'" + text + "' is not a size in MiB (512, 512Mi, 4Gi)");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2) == null ? "" : m.group(2)) {
            case "Gi", "G" -> n * 1024;
            case "Ti", "T" -> n * 1024 * 1024;
            default -> n;
        };
    }

    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return duration(value);
        }
    }

    static final class SizeConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return mebibytes(value);
        }
    }
}
