package io.fleetjobs.sdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientResponseException;

/**
 * One followed log stream ({@code GET …/logs?follow=true&encoding=base64}): the bytes exactly as printed, each
 * event's id the byte offset it reaches, and after a cut (a connection reset, an instance going away, 503) the same
 * stream again from the last id ({@code Last-Event-ID}), so that the caller gets every byte once, in order. Gives up
 * after {@link #RETRIES} cuts in a row with nothing read between them, or where bytes without an offset were given
 * (the tail of an attempt whose machine sent nothing: where to resume is not known).
 */
final class LogFollow {
    /** Cuts in a row, with nothing read between them, that end the follow. */
    static final int RETRIES = 5;
    private static final Duration LONGEST_WAIT = Duration.ofSeconds(5);

    private final RestClient http;
    private final URI uri;
    private final String token;
    /** The wait after a first cut, doubled at each cut in a row, at most {@link #LONGEST_WAIT}. */
    private final Duration firstWait;
    private String lastEventId;
    private boolean gaveWithoutOffset;
    private boolean progressed;

    LogFollow(RestClient http, URI uri, String token, Duration firstWait) {
        this.http = http;
        this.uri = uri;
        this.token = token;
        this.firstWait = firstWait;
    }

    /** Reads the stream to its end, reconnecting after cuts. */
    void follow(Consumer<byte[]> onBytes) {
        int cuts = 0;
        while (true) {
            progressed = false;
            RuntimeException cut;
            try {
                if (once(onBytes)) {
                    return;
                }
                cut = new UncheckedIOException(new IOException("the log stream of " + uri.getPath() + " ended before its end"));
            } catch (ResourceAccessException | UncheckedIOException e) {
                cut = e;
            } catch (RestClientResponseException e) {
                if (e.getStatusCode().value() != HttpStatus.SERVICE_UNAVAILABLE.value()) {
                    throw e; // refused (400, 404, 429, …): not a cut
                }
                cut = e;
            }
            cuts = progressed ? 1 : cuts + 1;
            if (gaveWithoutOffset || cuts > RETRIES) {
                throw cut;
            }
            try {
                Thread.sleep(Math.min(LONGEST_WAIT.toMillis(), firstWait.toMillis() << (cuts - 1)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw cut;
            }
        }
    }

    /** One connection: true when the stream's end was read, false when it was cut. */
    private boolean once(Consumer<byte[]> onBytes) {
        return http.get().uri(uri)
                .headers(h -> {
                    h.setAccept(List.of(MediaType.TEXT_EVENT_STREAM));
                    if (token != null && !token.isBlank()) {
                        h.setBearerAuth(token);
                    }
                    if (lastEventId != null) {
                        h.set("Last-Event-ID", lastEventId);
                    }
                    h.set("User-Agent", "fleetjobs-sdk");
                })
                .exchange((request, response) -> {
                    if (response.getStatusCode().isError()) {
                        throw new RestClientResponseException("following the logs at " + uri.getPath() + " failed: "
                                + response.getStatusCode(), response.getStatusCode(), response.getStatusText(),
                                response.getHeaders(), response.getBody().readAllBytes(), StandardCharsets.UTF_8);
                    }
                    MediaType type = response.getHeaders().getContentType();
                    if (type == null || !MediaType.TEXT_EVENT_STREAM.isCompatibleWith(type)) {
                        throw new IllegalStateException("the server answered a log follow with " + type
                                + ", not a stream of events");
                    }
                    try {
                        return ServerSentEvents.read(response.getBody(), event -> give(event, onBytes));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e); // cut: resumed by follow
                    }
                }, true);
    }

    /** Passes one event's bytes on; true at the stream's end. */
    private boolean give(ServerSentEvents.Event event, Consumer<byte[]> onBytes) {
        if ("end".equals(event.name())) {
            return true;
        }
        if (event.name() != null) {
            return false; // an event of a kind this client does not know
        }
        byte[] bytes = Base64.getDecoder().decode(event.data());
        if (bytes.length > 0) {
            onBytes.accept(bytes);
            progressed = true;
            if (event.id() == null) {
                gaveWithoutOffset = true;
            }
        }
        if (event.id() != null) {
            lastEventId = event.id();
        }
        return false;
    }
}
