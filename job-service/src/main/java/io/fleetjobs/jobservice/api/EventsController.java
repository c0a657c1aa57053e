package io.fleetjobs.jobservice.api;

import io.fleetjobs.jobservice.events.EventCursor;
import io.fleetjobs.jobservice.events.EventFeed;
import io.fleetjobs.jobservice.events.EventsProperties;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.FeedEvent;
import io.fleetjobs.store.HistoryFeed;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.support.CallerIdentity;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * Live state changes as Server-Sent Events: one job's ({@code /jobs/{id}/events?follow=true}, which ends after the
 * job's terminal change) or the caller's tenant's ({@code /events?follow=true}). Each event's {@code id} is its
 * position; a client that reconnects with {@code Last-Event-ID} (or {@code ?since=}) gets every change after it, in
 * order. The request's (virtual) thread writes the stream; the {@link EventFeed} hands it the changes.
 */
@RestController
@Tag(name = "jobs", description = "Jobs of the caller's tenant.")
class EventsController {
    static final String EVENT_STREAM = "text/event-stream";
    /** A full history of one finished job is written from the store in pieces of this size. */
    private static final int PAGE = 500;

    private final EventFeed feed;
    private final HistoryFeed history;
    private final JobStore store;
    private final EventsProperties properties;
    private final JsonMapper json;

    EventsController(EventFeed feed, HistoryFeed history, JobStore store, EventsProperties properties, JsonMapper json) {
        this.feed = feed;
        this.history = history;
        this.store = store;
        this.properties = properties;
        this.json = json;
    }

    /** What {@code data:} carries: the change, as {@code GET /jobs/{id}/events} lists it, with its job and version. */
    record EventData(UUID jobId, long version, Instant at, JobState from, JobState to, String reason) {
        static EventData of(FeedEvent e) {
            return new EventData(e.jobId(), e.version(), e.at(), e.from(), e.to(), e.reason());
        }
    }

    // the contract documents it as listEvents with follow=true (one operation per method and path)
    @Operation(hidden = true)
    @GetMapping(path = "/api/v1/jobs/{id}/events", params = "follow=true")
    void followJob(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String id,
            @RequestHeader(name = "Last-Event-ID", required = false) String lastEventId,
            @RequestParam(required = false) String since, HttpServletResponse response) throws IOException {
        JobRecord job = find(caller, id);
        EventCursor cursor = EventCursor.start(resumeAfter(lastEventId, since), true, feed.oldestKept(), 0);
        if (job.state().isTerminal()) {
            // nothing will follow: what is stored is all there is
            try (var out = open(response, cursor)) {
                long after = cursor.after();
                List<FeedEvent> page;
                do {
                    page = history.ofJob(job.id(), after, Long.MAX_VALUE, PAGE);
                    for (FeedEvent e : page) {
                        out.event(e);
                        after = e.position();
                    }
                } while (page.size() == PAGE);
            }
            return;
        }
        stream(response, cursor, opened(caller, job.id(), cursor), true);
    }

    @Operation(operationId = "followEvents", summary = "The caller's tenant's state changes as they happen (Server-Sent Events)")
    @GetMapping("/api/v1/events")
    void followTenant(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller,
            @RequestParam(required = false) String follow,
            @RequestHeader(name = "Last-Event-ID", required = false) String lastEventId,
            @RequestParam(required = false) String since, HttpServletResponse response) throws IOException {
        if (!"true".equals(follow)) {
            throw ApiException.badRequest("follow", "must be true: this endpoint streams (text/event-stream)");
        }
        EventCursor cursor = EventCursor.start(resumeAfter(lastEventId, since), false, feed.oldestKept(), feed.head());
        stream(response, cursor, opened(caller, null, cursor), false);
    }

    private EventFeed.Stream opened(CallerIdentity caller, UUID jobId, EventCursor cursor) {
        try {
            return feed.open(caller.tenantId(), jobId, cursor.after());
        } catch (EventFeed.TooManyStreams e) {
            throw ApiException.tooManyRequests("tenant " + caller.tenantName() + " has "
                    + properties.maxStreamsPerTenant() + " event streams open here; close one or try again later", 5);
        }
    }

    private void stream(HttpServletResponse response, EventCursor cursor, EventFeed.Stream stream, boolean endAtTerminal)
            throws IOException {
        try (stream; var out = open(response, cursor)) {
            while (!stream.ended()) {
                FeedEvent e = stream.next(properties.heartbeat());
                if (e == null) {
                    out.comment("keep-alive");
                    continue;
                }
                out.event(e);
                if (endAtTerminal && e.to().isTerminal()) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException gone) {
            // the client went away: nothing to answer
        }
    }

    private Output open(HttpServletResponse response, EventCursor cursor) throws IOException {
        response.setStatus(200);
        response.setContentType(EVENT_STREAM);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no"); // nginx and the like: do not buffer
        Output out = new Output(response.getOutputStream());
        out.write("retry: 1000\n\n");
        if (cursor.horizonPassed()) {
            out.write("event: horizon\ndata: {\"oldestKept\":" + (cursor.after() + 1)
                    + ",\"detail\":\"changes before this position are no longer kept; the stream starts there\"}\n\n");
        }
        out.flush();
        return out;
    }

    /** SSE framing: one {@code id:}/{@code data:} block per change, flushed at once. */
    private final class Output implements AutoCloseable {
        private final OutputStream out;

        Output(OutputStream out) {
            this.out = out;
        }

        void event(FeedEvent e) throws IOException {
            write("id: " + e.position() + "\ndata: " + json.writeValueAsString(EventData.of(e)) + "\n\n");
            flush();
        }

        void comment(String text) throws IOException {
            write(": " + text + "\n\n");
            flush();
        }

        void write(String s) throws IOException {
            out.write(s.getBytes(StandardCharsets.UTF_8));
        }

        void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.flush();
        }
    }

    private static Long resumeAfter(String lastEventId, String since) {
        try {
            Long resumed = EventCursor.parse(lastEventId);
            if (resumed != null) {
                return resumed;
            }
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("Last-Event-ID", "must be an event id this API sent (a non-negative integer)");
        }
        try {
            return EventCursor.parse(since);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("since", "must be an event id this API sent (a non-negative integer)");
        }
    }

    private JobRecord find(CallerIdentity caller, String id) {
        UUID jobId;
        try {
            jobId = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("job " + id);
        }
        return store.find(caller.tenantId(), jobId).orElseThrow(() -> ApiException.notFound("job " + id));
    }
}
