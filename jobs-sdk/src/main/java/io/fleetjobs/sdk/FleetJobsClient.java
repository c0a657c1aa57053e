package io.fleetjobs.sdk;

import io.fleetjobs.sdk.api.AdminApi;
import io.fleetjobs.sdk.api.JobsApi;
import io.fleetjobs.sdk.api.MachinesApi;
import io.fleetjobs.sdk.invoker.ApiClient;
import io.fleetjobs.sdk.model.Event;
import io.fleetjobs.sdk.model.Job;
import io.fleetjobs.sdk.model.JobPage;
import io.fleetjobs.sdk.model.JobSpec;
import io.fleetjobs.sdk.model.JobState;
import io.fleetjobs.sdk.model.Problem;
import io.fleetjobs.sdk.model.StreamedEvent;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.springframework.web.client.RestClientResponseException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The FleetJobs API from Java: the generated clients ({@link #jobs()}, {@link #admin()}, {@link #machines()})
 * sharing one connection and token, and what they make awkward: every page of a listing as one stream, and
 * following a job until it ends.
 *
 * <pre>{@code
 * FleetJobsClient fleet = FleetJobsClient.connect("http://localhost:8080", System.getenv("JOBS_TOKEN"));
 * Job job = fleet.submit(new JobSpec().name("hello").resources(new Resources().cpu(BigDecimal.ONE).memoryMb(256L))
 *         .execution(new Execution().command(List.of("echo", "hi"))));
 * Job done = fleet.watch(job.getId(), Duration.ofMinutes(5), event -> System.out.println(event.getTo()));
 * }</pre>
 *
 * Errors are the generated clients' {@link RestClientResponseException} (see {@link #problem}); a server that
 * cannot be reached is Spring's {@code ResourceAccessException}.
 */
public final class FleetJobsClient {
    /** The poll interval of {@link #watch} (against a server without live events) unless told otherwise. */
    public static final Duration DEFAULT_POLL = Duration.ofMillis(500);
    private static final JsonMapper PROBLEM_READER = ApiClient.createDefaultMapper(null);

    private final ApiClient apiClient;
    private final JobsApi jobs;
    private final AdminApi admin;
    private final MachinesApi machines;
    private final Duration pollInterval;
    /** The bearer token, for the event stream that {@link #watch} reads itself; null for none. */
    private final String token;

    private FleetJobsClient(ApiClient apiClient, String token, Duration pollInterval) {
        this.apiClient = apiClient;
        this.token = token;
        this.jobs = new JobsApi(apiClient);
        this.admin = new AdminApi(apiClient);
        this.machines = new MachinesApi(apiClient);
        this.pollInterval = pollInterval;
    }

    /** A client of the API at {@code baseUrl} (the gateway, {@code http://localhost:8080} locally) with a bearer token. */
    public static FleetJobsClient connect(String baseUrl, String token) {
        ApiClient client = new ApiClient();
        client.setBasePath(stripTrailingSlash(Objects.requireNonNull(baseUrl, "baseUrl")));
        if (token != null && !token.isBlank()) {
            client.setBearerToken(token);
        }
        client.setUserAgent("fleetjobs-sdk");
        return new FleetJobsClient(client, token == null || token.isBlank() ? null : token, DEFAULT_POLL);
    }

    /** The same connection, polling every {@code interval} in {@link #watch}. */
    public FleetJobsClient withPollInterval(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("poll interval must be positive: " + interval);
        }
        return new FleetJobsClient(apiClient, token, interval);
    }

    public JobsApi jobs() {
        return jobs;
    }

    public AdminApi admin() {
        return admin;
    }

    public MachinesApi machines() {
        return machines;
    }

    public ApiClient apiClient() {
        return apiClient;
    }

    public Job submit(JobSpec spec) {
        return jobs.submitJob(spec, null);
    }

    /** Submits with an {@code Idempotency-Key}: the same key and spec again return the same job. */
    public Job submit(JobSpec spec, String idempotencyKey) {
        return jobs.submitJob(spec, idempotencyKey);
    }

    public Job get(UUID id) {
        return jobs.getJob(id);
    }

    public Job cancel(UUID id) {
        return jobs.cancelJob(id);
    }

    /**
     * Follows one stream of an attempt (live logs, {@code GET …/logs?follow=true}): {@code onBytes} gets each piece
     * of output as printed (CR and bytes that are not UTF-8 included) as it arrives, within about a second of the job
     * printing it; returns when the attempt ended and every byte up to its end was read. A connection cut on the way
     * (an instance going away, a network reset, 503) is followed again from the last byte read, after the {@link
     * #withPollInterval poll interval} (doubled at each cut in a row), so each byte comes once, in order;
     * {@value LogFollow#RETRIES} cuts in a row with nothing read between them end the follow with the last one's
     * exception. A refusal (404, 400, 429) throws {@link RestClientResponseException}.
     *
     * @param stream {@code stdout} or {@code stderr}
     * @param offset where to start: a byte offset (0 for the whole output), negative for the last bytes, null for
     *               the server's default (the last 64 KiB)
     */
    public void followLogs(UUID jobId, int attempt, String stream, Long offset, Consumer<byte[]> onBytes) {
        followLogs(jobId, attempt, 0, stream, offset, onBytes);
    }

    /** The same, of one replica of a gang's attempt ({@code replica} its rank; 0 for a job of one replica). */
    public void followLogs(UUID jobId, int attempt, int replica, String stream, Long offset, Consumer<byte[]> onBytes) {
        StringBuilder uri = new StringBuilder(apiClient.getBasePath()).append("/api/v1/jobs/").append(jobId)
                .append("/attempts/").append(attempt).append("/logs?follow=true&encoding=base64&stream=")
                .append(Objects.requireNonNull(stream, "stream"));
        if (replica != 0) {
            uri.append("&replica=").append(replica);
        }
        if (offset != null) {
            uri.append("&offset=").append(offset);
        }
        new LogFollow(apiClient.getRestClient(), URI.create(uri.toString()), token, pollInterval).follow(onBytes);
    }

    /** Every job of the caller in {@code state} (null for all), newest first, fetching pages of {@code pageSize} as read. */
    public Stream<Job> listAll(JobState state, int pageSize) {
        Iterator<Job> jobsIterator = new Iterator<>() {
            private JobPage page = jobs.listJobs(state, pageSize, null, null, null, null);
            private int next;

            @Override
            public boolean hasNext() {
                while (next >= page.getItems().size() && page.getNextPageToken() != null) {
                    page = jobs.listJobs(state, pageSize, page.getNextPageToken(), null, null, null);
                    next = 0;
                }
                return next < page.getItems().size();
            }

            @Override
            public Job next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return page.getItems().get(next++);
            }
        };
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(jobsIterator, Spliterator.ORDERED), false);
    }

    public static boolean isTerminal(JobState state) {
        return state == JobState.SUCCEEDED || state == JobState.FAILED || state == JobState.CANCELED;
    }

    /**
     * Follows a job until it ends: calls {@code onTransition} once for each of its state changes, in order (those
     * before the call too), and returns the job as it ended. Reads the job's live events (Server-Sent Events,
     * reconnecting from the last event id when the connection drops); a server that answers without a stream is
     * polled every {@link #withPollInterval poll interval} instead.
     *
     * @throws TimeoutException when the job has not ended within {@code timeout}
     */
    public Job watch(UUID id, Duration timeout, Consumer<Event> onTransition) throws TimeoutException, InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        EventStream stream = stream("/api/v1/jobs/" + id + "/events?follow=true");
        while (true) {
            switch (stream.follow(deadline, e -> {
                onTransition.accept(new Event().at(e.getAt()).from(e.getFrom()).to(e.getTo()).reason(e.getReason()));
                return isTerminal(e.getTo());
            })) {
                case ENDED -> {
                    return jobs.getJob(id);
                }
                case NOT_A_STREAM -> {
                    return poll(id, deadline, timeout, (int) stream.seenVersion(id), onTransition);
                }
                case TIMED_OUT -> throw new TimeoutException("job " + id + " has not ended within " + timeout);
                case DROPPED -> {
                    if (!Instant.now().isBefore(deadline)) {
                        throw new TimeoutException("job " + id + " has not ended within " + timeout);
                    }
                    Thread.sleep(pollInterval.toMillis()); // then again, from the last event id
                }
            }
        }
    }

    /**
     * Every state change of every job of the caller's tenant as it happens, from now on (or after the event id
     * {@code since}), each once: calls {@code onChange} for each until it returns false or {@code within} has passed.
     * Reconnects from the last event id when the connection drops.
     *
     * @throws RestClientResponseException when the server refuses the stream (401, 429 with Retry-After, …)
     * @throws IllegalStateException when the server answers without a live stream
     */
    public void followEvents(Long since, Duration within, Predicate<StreamedEvent> onChange) throws InterruptedException {
        Instant deadline = Instant.now().plus(within);
        EventStream stream = stream("/api/v1/events?follow=true" + (since == null ? "" : "&since=" + since));
        while (true) {
            switch (stream.follow(deadline, e -> !onChange.test(e))) {
                case ENDED, TIMED_OUT -> {
                    return;
                }
                case NOT_A_STREAM -> {
                    if (stream.refused() != null) {
                        throw stream.refused();
                    }
                    throw new IllegalStateException("the server at " + apiClient.getBasePath() + " has no live event stream");
                }
                case DROPPED -> Thread.sleep(pollInterval.toMillis()); // then again, from the last event id
            }
        }
    }

    private EventStream stream(String path) {
        return new EventStream(apiClient.getRestClient(), URI.create(apiClient.getBasePath() + path), token,
                mapper());
    }

    /** {@link #watch} by asking for the job's events again and again, the first {@code seen} of them already given. */
    private Job poll(UUID id, Instant deadline, Duration timeout, int seen, Consumer<Event> onTransition)
            throws TimeoutException, InterruptedException {
        while (true) {
            List<Event> events = jobs.listEvents(id, null, null, null).getItems();
            for (int i = seen; i < events.size(); i++) {
                onTransition.accept(events.get(i));
            }
            seen = Math.max(seen, events.size());
            if (!events.isEmpty() && isTerminal(events.getLast().getTo())) {
                return jobs.getJob(id);
            }
            if (!Instant.now().isBefore(deadline)) {
                throw new TimeoutException("job " + id + " has not ended within " + timeout);
            }
            Thread.sleep(pollInterval.toMillis());
        }
    }

    /** The RFC 9457 problem an error answer carried, when it carried one. */
    public static Optional<Problem> problem(RestClientResponseException e) {
        String body = e.getResponseBodyAsString();
        if (body.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(PROBLEM_READER.readValue(body, Problem.class));
        } catch (RuntimeException notAProblem) {
            return Optional.empty();
        }
    }

    /** The JSON mapper the generated clients use, for reading and writing the models. */
    public JsonMapper mapper() {
        return apiClient.getJsonMapper();
    }

    private static String stripTrailingSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
