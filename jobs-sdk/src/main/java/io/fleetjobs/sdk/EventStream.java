package io.fleetjobs.sdk;

import io.fleetjobs.sdk.model.StreamedEvent;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;
import tools.jackson.databind.json.JsonMapper;

/**
 * A live stream of changes as Server-Sent Events, one job's ({@code GET /api/v1/jobs/{id}/events?follow=true}) or its
 * tenant's ({@code GET /api/v1/events?follow=true}), reconnected from the last event id when the connection drops.
 * Changes come at least once: one the caller was already given (a version of its job it has seen) is not given again.
 */
final class EventStream {
    enum Outcome {
        /** The caller said it has had enough (one job's stream: its terminal change was given). */
        ENDED,
        /** The connection ended before the job did: follow again, from {@link #lastEventId()}. */
        DROPPED,
        /** The deadline passed while following. */
        TIMED_OUT,
        /** The server answered without a stream (an older one, or an error): poll instead. */
        NOT_A_STREAM
    }

    /** How many jobs' versions a tenant's stream remembers, to give each change once. */
    private static final int VERSIONS_KEPT = 10_000;

    private final RestClient http;
    private final URI uri;
    private final String token;
    private final JsonMapper json;
    private final Map<UUID, Long> versions = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, Long> eldest) {
            return size() > VERSIONS_KEPT;
        }
    };
    private String lastEventId;
    private RestClientResponseException refused;

    EventStream(RestClient http, URI uri, String token, JsonMapper json) {
        this.http = http;
        this.uri = uri;
        this.token = token;
        this.json = json;
    }

    String lastEventId() {
        return lastEventId;
    }

    /** The highest version of the job given to the caller: a poll that takes over goes on after it. */
    long seenVersion(UUID job) {
        return versions.getOrDefault(job, 0L);
    }

    /** Why the server answered {@link Outcome#NOT_A_STREAM}, where it was an error (not 2xx); null otherwise. */
    RestClientResponseException refused() {
        return refused;
    }

    /** Gives each change not given before to {@code onChange}, which says true to stop ({@link Outcome#ENDED}). */
    Outcome follow(Instant deadline, Predicate<StreamedEvent> onChange) {
        try {
            return http.get().uri(uri)
                    .headers(h -> {
                        h.setAccept(List.of(MediaType.TEXT_EVENT_STREAM));
                        if (token != null) {
                            h.setBearerAuth(token);
                        }
                        if (lastEventId != null) {
                            h.set("Last-Event-ID", lastEventId);
                        }
                        h.set("User-Agent", "fleetjobs-sdk");
                    })
                    .exchange((request, response) -> read(response, deadline, onChange), true);
        } catch (ResourceAccessException unreachable) {
            if (lastEventId == null) {
                throw unreachable; // never reached: as any other call
            }
            // reached before: an instance going away, say; try again until the deadline
            return Instant.now().isBefore(deadline) ? Outcome.DROPPED : Outcome.TIMED_OUT;
        }
    }

    private Outcome read(ClientHttpResponse response, Instant deadline, Predicate<StreamedEvent> onChange) throws IOException {
        MediaType type = response.getHeaders().getContentType();
        if (!response.getStatusCode().is2xxSuccessful()) {
            refused = new RestClientResponseException("following " + uri.getPath()
                    + " failed: " + response.getStatusCode(), response.getStatusCode(), response.getStatusText(),
                    response.getHeaders(), response.getBody().readAllBytes(), StandardCharsets.UTF_8);
            return Outcome.NOT_A_STREAM;
        }
        if (type == null || !MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
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
        try {
            if (ServerSentEvents.read(response.getBody(),
                    e -> e.name() == null && give(e.id(), e.data(), onChange))) {
                return Outcome.ENDED;
            }
        } catch (IOException closed) {
            // dropped, or closed at the deadline
        } finally {
            watchdog.interrupt();
        }
        return Instant.now().isBefore(deadline) ? Outcome.DROPPED : Outcome.TIMED_OUT;
    }

    /** Gives one change unless given before; true when the caller has had enough. */
    private boolean give(String eventId, String data, Predicate<StreamedEvent> onChange) {
        StreamedEvent e = json.readValue(data, StreamedEvent.class);
        if (eventId != null) {
            lastEventId = eventId;
        }
        if (e.getVersion() <= versions.getOrDefault(e.getJobId(), 0L)) {
            return false;
        }
        versions.put(e.getJobId(), e.getVersion());
        return onChange.test(e);
    }
}
