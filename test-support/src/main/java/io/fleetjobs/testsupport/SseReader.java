package io.fleetjobs.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Server-Sent Events client for tests: opens the stream, parses it on a thread of its own as it arrives
 * ({@code id:}, {@code event:}, {@code data:}, comments), and hands out events as they come; closing it drops the
 * connection, as a client that goes away would.
 */
public final class SseReader implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Event END = new Event(null, null, null);

    private final int status;
    private final String contentType;
    private final String body;
    private final InputStream in;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final AtomicInteger comments = new AtomicInteger();
    private volatile boolean ended;

    /** One event: its {@code id} (or null), its {@code event} name (null: a plain message), its data lines joined. */
    public record Event(String id, String event, String data) {
    }

    private SseReader(HttpResponse<InputStream> response) {
        this.status = response.statusCode();
        this.contentType = response.headers().firstValue("Content-Type").orElse(null);
        if (contentType == null || !contentType.startsWith("text/event-stream")) {
            try (InputStream body = response.body()) {
                this.body = new String(body.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            this.in = null;
            this.ended = true;
            return;
        }
        this.body = null;
        this.in = response.body();
        Thread.ofVirtual().name("sse-reader").start(this::read);
    }

    /** Opens {@code path} on {@code api}'s server with its credentials and these extra headers. */
    public static SseReader open(Api api, String path, Map<String, String> headers) {
        HttpRequest.Builder request = api.request("GET", path).header("Accept", "text/event-stream").GET();
        headers.forEach(request::header);
        try {
            return new SseReader(HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static SseReader open(Api api, String path) {
        return open(api, path, Map.of());
    }

    public int status() {
        return status;
    }

    public String contentType() {
        return contentType;
    }

    /** The whole answer when it was not a stream (a problem+json, say); null for a stream. */
    public String body() {
        return body;
    }

    /** The next event, or null when none came within {@code wait} or the stream is over. */
    public Event next(Duration wait) {
        try {
            Event e = events.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
            if (e == END) {
                events.add(END); // stays over for later calls
                return null;
            }
            return e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The next {@code n} events, each within {@code wait} of the one before; fewer when the stream ends or stalls. */
    public List<Event> next(int n, Duration wait) {
        List<Event> got = new ArrayList<>();
        while (got.size() < n) {
            Event e = next(wait);
            if (e == null) {
                break;
            }
            got.add(e);
        }
        return got;
    }

    /** The server ended the stream (or it failed), and every event before the end was read. */
    public boolean ended() {
        return ended && (events.isEmpty() || events.peek() == END);
    }

    /** Comment lines seen so far ({@code : keep-alive}, say). */
    public int comments() {
        return comments.get();
    }

    @Override
    public void close() {
        ended = true;
        if (in != null) {
            try {
                in.close();
            } catch (IOException ignored) {
                // closing is all that was wanted
            }
        }
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String id = null;
            String name = null;
            StringBuilder data = null;
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null) {
                        events.add(new Event(id, name, data.toString()));
                    }
                    id = null;
                    name = null;
                    data = null;
                } else if (line.startsWith(":")) {
                    comments.incrementAndGet();
                } else {
                    int colon = line.indexOf(':');
                    String field = colon < 0 ? line : line.substring(0, colon);
                    String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
                    switch (field) {
                        case "id" -> id = value;
                        case "event" -> name = value;
                        case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                        default -> { } // retry: and unknown fields
                    }
                }
            }
        } catch (IOException e) {
            // the connection was dropped (by close(), or the server)
        } finally {
            ended = true;
            events.add(END);
        }
    }
}
