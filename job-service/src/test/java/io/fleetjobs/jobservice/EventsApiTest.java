package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.jobservice.events.EventFeed;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.testsupport.Api;
import io.fleetjobs.testsupport.SseReader;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Live events as Server-Sent Events: as they happen, resumed without a gap or a repeat, per tenant. Heartbeats come
 * often here: a stream notices that its client left when it next writes.
 */
@org.springframework.test.context.TestPropertySource(properties = "jobs.events.heartbeat=300ms")
class EventsApiTest extends JobServiceTestBase {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @Autowired
    JobStore store;

    @Autowired
    EventFeed feed;

    @Test
    void aTenantsStreamCarriesEachChangeAsItHappens() {
        Api kim = newTenant("kim");
        try (SseReader events = SseReader.open(kim, "/api/v1/events?follow=true")) {
            assertThat(events.status()).isEqualTo(200);
            assertThat(events.contentType()).startsWith("text/event-stream");
            UUID id = UUID.fromString(kim.post("/api/v1/jobs", spec("live")).field("id"));
            await().atMost(WAIT).until(() -> store.get(id).orElseThrow().state() == JobState.QUEUED);
            assertThat(states(events.next(2, WAIT))).containsExactly("SUBMITTED", "QUEUED");
            for (JobState next : List.of(JobState.SCHEDULED, JobState.RUNNING, JobState.SUCCEEDED)) {
                move(store, id, next);
                SseReader.Event e = events.next(WAIT);
                assertThat(e).as("the change to %s, as it happens", next).isNotNull();
                assertThat(data(e).get("to").asString()).isEqualTo(next.name());
                assertThat(data(e).get("jobId").asString()).isEqualTo(id.toString());
            }
            assertThat(events.ended()).as("a tenant's stream goes on").isFalse();
            await().atMost(WAIT).until(() -> events.comments() > 0); // a heartbeat while nothing happens
        }
    }

    @Test
    void aDroppedStreamResumesFromItsLastIdWithoutAGapOrARepeat() {
        Api lena = newTenant("lena");
        UUID id = UUID.fromString(lena.post("/api/v1/jobs", spec("resumed")).field("id"));
        String path = "/api/v1/jobs/" + id + "/events?follow=true";
        List<SseReader.Event> seen = new ArrayList<>();
        try (SseReader first = SseReader.open(lena, path)) {
            await().atMost(WAIT).until(() -> store.get(id).orElseThrow().state() == JobState.QUEUED);
            seen.addAll(first.next(2, WAIT));
            move(store, id, JobState.SCHEDULED);
            seen.add(first.next(WAIT));
        } // dropped
        move(store, id, JobState.RUNNING);
        move(store, id, JobState.SUCCEEDED);
        String lastId = seen.getLast().id();
        try (SseReader again = SseReader.open(lena, path, Map.of("Last-Event-ID", lastId))) {
            seen.addAll(again.next(10, WAIT));
            await().atMost(WAIT).until(again::ended);
        }
        assertThat(seen).doesNotContainNull();
        assertThat(states(seen)).containsExactly("SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING", "SUCCEEDED");
        assertThat(seen.stream().map(e -> data(e).get("version").asLong()).toList()).containsExactly(1L, 2L, 3L, 4L, 5L);
        List<Long> ids = seen.stream().map(e -> Long.parseLong(e.id())).toList();
        assertThat(ids).isSorted().doesNotHaveDuplicates();

        // a finished job's stream: what is stored after the id, then the end; ?since= as Last-Event-ID
        try (SseReader tail = SseReader.open(lena, path.replace("follow=true", "follow=true&since=" + ids.get(2)))) {
            assertThat(states(tail.next(10, WAIT))).containsExactly("RUNNING", "SUCCEEDED");
            assertThat(tail.ended()).isTrue();
        }
        // without follow, the list as before
        assertThat(lena.get("/api/v1/jobs/" + id + "/events").json().get("items").size()).isEqualTo(5);
    }

    @Test
    void aStreamShowsNothingOfAnotherTenant() {
        Api mia = newTenant("mia");
        Api nils = newTenant("nils");
        try (SseReader miaEvents = SseReader.open(mia, "/api/v1/events?follow=true")) {
            String nilsJob = nils.post("/api/v1/jobs", spec("theirs")).field("id");
            assertThat(SseReader.open(mia, "/api/v1/jobs/" + nilsJob + "/events?follow=true").status())
                    .as("another tenant's job does not exist").isEqualTo(404);
            UUID mine = UUID.fromString(mia.post("/api/v1/jobs", spec("mine")).field("id"));
            List<SseReader.Event> got = miaEvents.next(2, WAIT);
            assertThat(got).hasSize(2);
            assertThat(got).allSatisfy(e -> assertThat(data(e).get("jobId").asString()).isEqualTo(mine.toString()));
        }
    }

    @Test
    void tooManyStreamsOfOneTenantAre429AndABadIdIs400() {
        Api olga = newTenant("olga");
        List<SseReader> open = new ArrayList<>();
        try {
            for (int i = 0; i < 32; i++) {
                SseReader s = SseReader.open(olga, "/api/v1/events?follow=true");
                assertThat(s.status()).isEqualTo(200);
                open.add(s);
            }
            SseReader refused = SseReader.open(olga, "/api/v1/events?follow=true");
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(SseReader.open(newTenant("pia"), "/api/v1/events?follow=true").status())
                    .as("another tenant's streams are its own").isEqualTo(200);
        } finally {
            open.forEach(SseReader::close);
        }
        await().atMost(WAIT).until(() -> {
            try (SseReader s = SseReader.open(olga, "/api/v1/events?follow=true")) {
                return s.status() == 200;
            }
        });
        SseReader bad = SseReader.open(olga, "/api/v1/events?follow=true", Map.of("Last-Event-ID", "yesterday"));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("Last-Event-ID");
        assertThat(olga.get("/api/v1/events").status()).as("only as a stream").isEqualTo(400);
    }

    /**
     * HEAD on a live stream: the server drops the answer's body, so no write ever failed and the stream never learned
     * that its client left; each held one of the tenant's 32 places for good, and the connection it came on.
     */
    @Test
    void aHeadOnALiveStreamIs405AndOpensNothing() throws Exception {
        Api quinn = newTenant("stream-heads");
        UUID job = UUID.fromString(quinn.post("/api/v1/jobs", spec("headed")).field("id"));
        int before = feed.openStreams();
        for (String path : List.of("/api/v1/events?follow=true", "/api/v1/jobs/" + job + "/events?follow=true",
                "/api/v1/jobs/" + job + "/attempts/1/logs?follow=true")) {
            HttpResponse<Void> head = HttpClient.newHttpClient().send(quinn.request("HEAD", path).HEAD().build(),
                    HttpResponse.BodyHandlers.discarding());
            assertThat(head.statusCode()).as(path).isEqualTo(405);
            assertThat(head.headers().firstValue("Allow")).as(path).hasValue("GET");
        }
        assertThat(feed.openStreams()).as("none opened (another test's may still be closing)").isLessThanOrEqualTo(before);
        assertThat(HttpClient.newHttpClient().send(quinn.request("HEAD", "/api/v1/jobs/" + job).HEAD().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).as("a HEAD on what is not a stream").isEqualTo(200);
    }

    private static List<String> states(List<SseReader.Event> events) {
        return events.stream().map(e -> data(e).get("to").asString()).toList();
    }

    private static JsonNode data(SseReader.Event e) {
        return JSON.readTree(e.data());
    }
}
