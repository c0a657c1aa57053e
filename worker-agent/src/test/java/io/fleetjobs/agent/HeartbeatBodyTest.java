package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.model.agent.AttemptReport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a job prints cannot make its machine's heartbeats too large for the agent API: four attempts that each end with
 * 64 KiB of control characters on stdout and on stderr (each written as a six-byte escape in JSON: 768 KiB a report)
 * once made every heartbeat of their machine 3 MiB; the scheduler refused each (413, its 1 MiB limit), the machine was
 * declared lost with every attempt on it, and its agent went on sending the same heartbeat. Here the scheduler refuses
 * bodies over 1 MiB as the real one does, and acknowledges the final reports it reads.
 */
class HeartbeatBodyTest {
    private static final int LIMIT = 1 << 20;
    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
    private static final List<UUID> JOBS = IntStream.rangeClosed(1, 4).mapToObj(i -> new UUID(9, i)).toList();
    private static final String PRINTED = "\u0001".repeat(64 * 1024 - 4) + "end\n";

    @TempDir
    Path workDir;
    private FakeScheduler scheduler;
    private final AtomicInteger heartbeats = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final Map<UUID, AttemptReport> acknowledged = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        if (scheduler != null) {
            scheduler.close(); // its agent too
        }
    }

    @Test
    void finalReportsWhoseTailsEscapeLargeGoInHeartbeatsTheAgentApiTakes() {
        scheduler = FakeScheduler.start(exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            int n = heartbeats.incrementAndGet();
            if (body.length > LIMIT) {
                refused.incrementAndGet();
                exchange.sendResponseHeaders(413, -1);
                exchange.close();
                return;
            }
            var heartbeat = JSON.readValue(body, AgentProtocol.Heartbeat.class);
            List<AttemptReport> ended = heartbeat.attempts().stream().filter(r -> r.state() != AttemptState.RUNNING)
                    .toList();
            ended.forEach(r -> acknowledged.put(r.jobId(), r));
            String start = n > 1 ? "" : JOBS.stream().map(job -> "{\"jobId\":\"" + job + "\",\"attempt\":1,\"epoch\":1,"
                    + "\"command\":[\"print\"],\"env\":{},\"startWithinMs\":60000}").collect(Collectors.joining(","));
            String ack = ended.stream().map(r -> "{\"jobId\":\"" + r.jobId() + "\",\"attempt\":" + r.attempt() + "}")
                    .collect(Collectors.joining(","));
            KeptCredentialTest.answer(exchange, "{\"leaseTtlMs\":60000,\"start\":[" + start + "],\"kill\":[],\"ack\":["
                    + ack + "]}");
        });
        Agent agent = scheduler.agent(workDir, 4000, 4096, FakeScheduler.endingAfter(Duration.ofMillis(50), PRINTED));
        agent.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.size() == JOBS.size() || refused.get() > 3);
        assertThat(refused.get()).as("heartbeats refused as too large").isZero();
        assertThat(acknowledged.keySet()).containsExactlyInAnyOrderElementsOf(JOBS);
        assertThat(acknowledged.values()).allSatisfy(r -> {
            assertThat(r.state()).isEqualTo(AttemptState.SUCCEEDED);
            assertThat(r.stdoutTail()).as("the tail's end is kept").endsWith("end\n").startsWith("\u0001");
            assertThat(r.stderrTail()).endsWith("end\n");
        });
    }

    @Test
    void whatJsonWritesOfATailIsNeverMoreThanCountedAndTheCutKeepsItsEnd() {
        for (String text : List.of("plain line\n", "\u0001\u0002\t\"\\/\u007f", "é漢😀", PRINTED)) {
            int written = JSON.writeValueAsString(text).getBytes(StandardCharsets.UTF_8).length - 2;
            assertThat(HeartbeatBody.jsonBytes(text)).as(text.substring(0, Math.min(20, text.length())))
                    .isGreaterThanOrEqualTo(written);
        }
        String cut = HeartbeatBody.lastJsonBytes("a😀".repeat(50_000) + "end", 1000);
        assertThat(HeartbeatBody.jsonBytes(cut)).isLessThanOrEqualTo(1000);
        assertThat(cut).endsWith("end").doesNotStartWith("\uDE00");
        assertThat(Character.isLowSurrogate(cut.charAt(0))).as("never half a pair").isFalse();
    }
}
