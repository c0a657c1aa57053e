package io.fleetjobs.sdk;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Predicate;

/** Server-Sent Events read from a response's body, one event at a time, as the SSE format defines them. */
final class ServerSentEvents {
    private ServerSentEvents() {
    }

    /**
     * One event: its {@code id:} (null when it had none), its {@code event:} name (null for a plain message) and its
     * {@code data:} lines joined by line feeds.
     */
    record Event(String id, String name, String data) {
    }

    /**
     * Gives each event of {@code body} to {@code onEvent} until the body ends or {@code onEvent} says true.
     *
     * @return true when {@code onEvent} stopped the reading, false when the body ended
     * @throws IOException when the connection breaks
     */
    static boolean read(InputStream body, Predicate<Event> onEvent) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        String id = null;
        String name = null;
        StringBuilder data = null;
        String line;
        while ((line = lines.readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null && onEvent.test(new Event(id, name, data.toString()))) {
                    return true;
                }
                id = null;
                name = null;
                data = null;
            } else if (line.startsWith("id:")) {
                id = value(line);
            } else if (line.startsWith("event:")) {
                name = value(line);
            } else if (line.startsWith("data:")) {
                data = data == null ? new StringBuilder(value(line)) : data.append('\n').append(value(line));
            }
        }
        return false;
    }

    private static String value(String line) {
        String v = line.substring(line.indexOf(':') + 1);
        return v.startsWith(" ") ? v.substring(1) : v;
    }
}
