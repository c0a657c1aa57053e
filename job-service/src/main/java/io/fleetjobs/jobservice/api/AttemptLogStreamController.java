package io.fleetjobs.jobservice.api;

import io.fleetjobs.model.logs.FollowEnd;
import io.fleetjobs.model.logs.LogLimits;
import io.fleetjobs.model.logs.LogStream;
import io.fleetjobs.model.logs.LogWindow;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.LogStreams;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.support.PlacesPerKey;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /api/v1/jobs/{id}/attempts/{n}/logs?follow=true}: one stream of an attempt as its agent ships it (live
 * logs, see docs/architecture.md), as Server-Sent Events ({@link LogEvents}: each event's id the byte offset it
 * reaches, for {@code Last-Event-ID}; a comment every {@link #KEEP_ALIVE} of silence; {@code event: end} last), or
 * as {@code text/plain}, chunked, the bytes as printed, when the client asks for that ({@code Accept: text/plain}).
 * The reader registers a follow (renewed while the response is open, removed when it ends); the agent learns of it
 * from its heartbeat's answer and pushes the stream's new bytes to the scheduler, which stores them in
 * {@code log_chunks}; this reads them by offset. The response ends when the attempt ended and every byte up to its
 * end was sent ({@link FollowEnd}).
 */
@RestController
@RequestMapping("/api/v1/jobs")
class AttemptLogStreamController {
    private static final int CHUNKS_PER_READ = 16;
    /** How long an event stream stays silent before a comment keeps it open (the gateway's read timeout is 60 s). */
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    private final JobStore store;
    private final LogStreams logs;
    private final InstantSource clock;
    private final Duration pollEvery;
    /**
     * Each follow holds a thread and reads {@code log_chunks} every {@code pollEvery}: a tenant's thousands of them
     * (of its own job, or one opened again and again) would be the database's load for everyone.
     */
    private final PlacesPerKey<UUID> follows;

    AttemptLogStreamController(JobStore store, LogStreams logs, InstantSource clock,
            @Value("${jobs.logs.poll-interval:200ms}") Duration pollEvery,
            @Value("${jobs.logs.max-follows-per-tenant:32}") int maxFollowsPerTenant) {
        this.store = store;
        this.logs = logs;
        this.clock = clock;
        this.pollEvery = pollEvery;
        this.follows = new PlacesPerKey<>(maxFollowsPerTenant);
    }

    @io.swagger.v3.oas.annotations.Hidden // in the contract as getAttemptLogs with follow=true (one operation a path)
    @GetMapping(path = "/{id}/attempts/{attempt}/logs", params = "follow=true")
    void follow(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String id,
            @PathVariable int attempt, @RequestParam(defaultValue = "0") int replica,
            @RequestParam(defaultValue = "stdout") String stream,
            @RequestParam(required = false) Long offset, @RequestParam(defaultValue = "text") String encoding,
            @RequestHeader(name = "Accept", required = false) String accept,
            @RequestHeader(name = "Last-Event-ID", required = false) String lastEventId, HttpServletResponse response)
            throws IOException {
        JobsController.requireAttempt(attempt);
        JobsController.requireReplica(replica);
        JobRecord job = find(caller, id);
        String wire = LogStream.ofWire(stream)
                .orElseThrow(() -> ApiException.badRequest("stream", "is stdout or stderr")).wire();
        LogStreams.AttemptOnMachine onMachine = logs.attempt(job.id(), attempt, replica)
                .orElseThrow(() -> ApiException.notFound(JobsController.attemptName(attempt, replica) + " of job " + id));
        if (!encoding.equals("text") && !encoding.equals("base64")) {
            throw ApiException.badRequest("encoding", "is text or base64");
        }
        LogEvents events = wantsPlainText(accept) ? null : encoding.equals("base64") ? LogEvents.base64() : new LogEvents();
        long from = events != null && lastEventId != null ? resumeAt(lastEventId)
                : offset == null ? LogLimits.DEFAULT_FROM : offset;
        if (!follows.tryTake(caller.tenantId())) {
            throw ApiException.tooManyRequests("tenant " + caller.tenantName() + " follows " + follows.perKey()
                    + " log streams here; close one or try again later", 5);
        }
        try {
            serve(new LogStreams.Stream(job.id(), attempt, replica, wire), onMachine, events, from, response);
        } finally {
            follows.giveBack(caller.tenantId());
        }
    }

    private void serve(LogStreams.Stream stream, LogStreams.AttemptOnMachine onMachine, LogEvents events, long from,
            HttpServletResponse response) throws IOException {
        response.setContentType(events == null ? "text/plain;charset=UTF-8" : "text/event-stream;charset=UTF-8");
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("X-Accel-Buffering", "no");
        UUID follower = UUID.randomUUID();
        logs.follow(follower, stream, onMachine.machineId(), from);
        try {
            OutputStream out = response.getOutputStream();
            response.flushBuffer(); // the reader sees the answer begin before the first bytes come
            stream(stream, onMachine.machineId(), from, follower, new Output(out, events));
        } finally {
            logs.unfollow(follower);
        }
    }

    /**
     * Whether the client asked for {@code text/plain} rather than events: it names {@code text/plain} (with a q above
     * 0) and not {@code text/event-stream} at a q as high. Anything else, no {@code Accept} and {@code *}{@code /*}
     * included, gets the contract's default, events.
     */
    static boolean wantsPlainText(String accept) {
        if (accept == null || accept.isBlank()) {
            return false;
        }
        double plain = 0;
        double events = 0;
        try {
            for (MediaType type : MediaType.parseMediaTypes(accept)) {
                if (type.getType().equals("text") && type.getSubtype().equals("plain")) {
                    plain = Math.max(plain, type.getQualityValue());
                } else if (type.getType().equals("text") && type.getSubtype().equals("event-stream")) {
                    events = Math.max(events, type.getQualityValue());
                }
            }
        } catch (InvalidMediaTypeException malformed) {
            return false;
        }
        return plain > 0 && plain > events;
    }

    /** The offset a reconnecting client's {@code Last-Event-ID} names: the last event's id is where it got to. */
    private static long resumeAt(String lastEventId) {
        try {
            long offset = Long.parseLong(lastEventId.strip());
            if (offset >= 0) {
                return offset;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw ApiException.badRequest("Last-Event-ID", "must be an event id this stream sent (a byte offset, 0 or more)");
    }

    /** Where the bytes go: as they are, or as events. */
    private record Output(OutputStream out, LogEvents events) {
        void bytes(byte[] data, int from, int length, long end) throws IOException {
            if (events == null) {
                out.write(data, from, length);
            } else {
                write(events.of(data, from, length, end));
            }
        }

        void keepAlive() throws IOException {
            if (events != null) {
                write(": keep-alive\n\n");
                out.flush();
            }
        }

        void end() throws IOException {
            if (events != null) {
                write(LogEvents.END);
                out.flush();
            }
        }

        private void write(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    private void stream(LogStreams.Stream stream, String machineId, long from, UUID follower, Output out)
            throws IOException {
        Instant started = clock.instant();
        Instant renewed = started;
        Instant lastBytes = started;
        Instant quiet = started;
        long position = Math.max(0, from); // a negative from: wherever the stored bytes begin
        while (true) {
            List<LogStreams.Chunk> chunks = logs.chunksAfter(stream, position, CHUNKS_PER_READ);
            boolean wrote = false;
            for (LogStreams.Chunk chunk : chunks) {
                var slice = LogWindow.slice(position, chunk.range());
                if (slice.isPresent()) {
                    out.bytes(chunk.data(), (int) (slice.get().offset() - chunk.offset()), slice.get().length(),
                            slice.get().end());
                    position = slice.get().end();
                    wrote = true;
                }
            }
            Instant now = clock.instant();
            if (wrote) {
                out.out().flush();
                lastBytes = now;
                quiet = now;
            } else if (!now.isBefore(quiet.plus(KEEP_ALIVE))) {
                out.keepAlive(); // events only: the gateway's read timeout cuts a stream silent for a minute
                quiet = now;
            }
            if (chunks.size() == CHUNKS_PER_READ) {
                continue; // more is stored: no wait
            }
            var current = logs.attempt(stream.jobId(), stream.attempt(), stream.replica());
            Instant endedAt = current.isEmpty() ? started : current.get().endedAt(); // null while it runs
            Instant quietSince = endedAt == null ? null : latest(endedAt, lastBytes);
            FollowEnd.Decision decision = FollowEnd.decide(quietSince, logs.streamEnd(stream).orElse(null),
                    position, now, LogLimits.AFTER_END_GRACE);
            if (decision == FollowEnd.Decision.GAVE_UP && lastBytes.equals(started)) {
                writeTail(stream, out); // no agent sent anything: the tail the attempt's end reported
            }
            if (decision != FollowEnd.Decision.GO_ON) {
                out.end();
                return;
            }
            if (!now.isBefore(renewed.plus(LogLimits.FOLLOW_RENEW_EVERY))) {
                logs.follow(follower, stream, machineId, from);
                renewed = now;
            }
            pause();
        }
    }

    private void writeTail(LogStreams.Stream stream, Output out) throws IOException {
        var tails = store.logs(stream.jobId(), stream.attempt(), stream.replica());
        if (tails.isPresent()) {
            byte[] tail = ("stdout".equals(stream.stream()) ? tails.get().stdout() : tails.get().stderr())
                    .getBytes(StandardCharsets.UTF_8);
            out.bytes(tail, 0, tail.length, -1); // where in the stream the tail begins is not known: no id
            out.out().flush();
        }
    }

    private static Instant latest(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /** The poll's interval: the stored chunks are read again after it (bytes come at most 4 times a second). */
    private void pause() throws IOException {
        try {
            Thread.sleep(pollEvery);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while following", e);
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
