package io.fleetjobs.model.logs;

import java.util.Locale;
import java.util.Optional;

/** One of an attempt's two outputs, each kept, shipped and followed apart. */
public enum LogStream {
    STDOUT, STDERR;

    /** The name on the wire and in the database: {@code stdout}, {@code stderr}. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The stream a wire name names; empty for anything else. */
    public static Optional<LogStream> ofWire(String name) {
        for (LogStream s : values()) {
            if (s.wire().equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
