package io.fleetjobs.sdk;

import io.fleetjobs.sdk.model.Event;
import io.fleetjobs.sdk.model.StreamedEvent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * One job's changes as Server-Sent Events ({@code GET /api/v1/jobs/{id}/events?follow=true}), reconnected from the
 * last event id when the connection drops. Changes come at least once: one the caller was already given (a version
 * it has seen) is not given again.
 */
final class EventStream {
    enum Outcome {
        /** The job's terminal change was given: the server ended the stream. */
        ENDED,
        /** The connection ended before the job did: follow again, from {@link #lastEventId()}. */
        DROPPED,
        /** The deadline passed while following. */
        TIMED_OUT,
        /** The server answered without a stream (an older one, or an error): poll instead. */
        NOT_A_STREAM
    }

    private final RestClient http;
    private final String basePath;
    private final String token;
    private final JsonMapper json;
    private final UUID id;
    private String lastEventId;
    private long seenVersion;

    EventStream(RestClient http, String basePath, String token, JsonMapper json, UUID id) {
        this.http = http;
        this.basePath = basePath;
        this.token = token;
        this.json = json;
        this.id = id;
    }

    String lastEventId() {
        return lastEventId;
    }

    /** The highest version given to the caller: a poll that takes over goes on after it. */
    long seenVersion() {
        return seenVersion;
    }

    Outcome follow(Instant deadline, Consumer<Event> onTransition) {
        try {
            return http.get().uri(basePath + "/api/v1/jobs/{id}/events?follow=true", id)
                    .headers(h -> {
                        h.setAccept(java.util.List.of(MediaType.TEXT_EVENT_STREAM));
                        if (token != null) {
                            h.setBearerAuth(token);
                        }
                        if (lastEventId != null) {
                            h.set("Last-Event-ID", lastEventId);
                        }
                        h.set("User-Agent", "fleetjobs-sdk");
                    })
                    .exchange((request, response) -> read(response, deadline, onTransition), true);
        } catch (org.springframework.web.client.ResourceAccessException unreachable) {
            if (lastEventId == null) {
                throw unreachable; // never reached: as any other call
            }
            // reached before: an instance going away, say; try again until the deadline
            return Instant.now().isBefore(deadline) ? Outcome.DROPPED : Outcome.TIMED_OUT;
        }
    }

    private Outcome read(ClientHttpResponse response, Instant deadline, Consumer<Event> onTransition) throws IOException {
        MediaType type = response.getHeaders().getContentType();
        if (!response.getStatusCode().is2xxSuccessful() || type == null || !MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
            return Outcome.NOT_A_STREAM;
        }
        // the read blocks; at the deadline the connection is closed under it
        Thread watchdog = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(Math.max(1, Duration.between(Instant.now(), deadline).toMillis()));
                response.close();
            } catch (InterruptedException done) {
                // the stream ended first
            }
        });
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.getBody(), StandardCharsets.UTF_8))) {
            String eventId = null;
            String name = null;
            StringBuilder data = null;
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null && name == null && give(eventId, data.toString(), onTransition)) {
                        return Outcome.ENDED;
                    }
                    eventId = null;
                    name = null;
                    data = null;
                } else if (line.startsWith("id:")) {
                    eventId = value(line);
                } else if (line.startsWith("event:")) {
                    name = value(line);
                } else if (line.startsWith("data:")) {
                    data = data == null ? new StringBuilder(value(line)) : data.append('\n').append(value(line));
                }
            }
        } catch (IOException closed) {
            // dropped, or closed at the deadline
        } finally {
            watchdog.interrupt();
        }
        return Instant.now().isBefore(deadline) ? Outcome.DROPPED : Outcome.TIMED_OUT;
    }

    /** Gives one change unless given before; true when it was the job's last. */
    private boolean give(String eventId, String data, Consumer<Event> onTransition) {
        StreamedEvent e = json.readValue(data, StreamedEvent.class);
        if (eventId != null) {
            lastEventId = eventId;
        }
        if (e.getVersion() > seenVersion) {
            seenVersion = e.getVersion();
            onTransition.accept(new Event().at(e.getAt()).from(e.getFrom()).to(e.getTo()).reason(e.getReason()));
        }
        return FleetJobsClient.isTerminal(e.getTo());
    }

    private static String value(String line) {
        String v = line.substring(line.indexOf(':') + 1);
        return v.startsWith(" ") ? v.substring(1) : v;
    }
}
