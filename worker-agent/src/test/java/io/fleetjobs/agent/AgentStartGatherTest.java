package io.fleetjobs.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attempt that ends soon after it started is reported once, ended, not running and then ended (which writes its
 * job twice): after a reply that started attempts, the next heartbeat waits for them to end, up to a window, and goes
 * as soon as they all have. The window here is an hour, so the heartbeat that reports the end can only come because
 * the attempt ended.
 */
class AgentStartGatherTest {
    private static final UUID JOB = new UUID(7, 7);

    @TempDir
    Path workDir;
    private FakeScheduler scheduler;
    /** Each heartbeat's body, in order. */
    private final List<String> heartbeats = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (scheduler != null) {
            scheduler.close(); // its agent too
        }
    }

    @Test
    void anAttemptThatEndsSoonAfterItStartedIsReportedOnceEnded() {
        scheduler = FakeScheduler.start(exchange -> {
            heartbeats.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String start = heartbeats.size() == 1 ? "{\"jobId\":\"" + JOB + "\",\"attempt\":1,\"epoch\":1,"
                    + "\"command\":[\"work\"],\"env\":{},\"startWithinMs\":60000}" : "";
            KeptCredentialTest.answer(exchange, "{\"leaseTtlMs\":60000,\"start\":[" + start + "],\"kill\":[],\"ack\":[]}");
        });
        Agent agent = scheduler.agent(workDir, 1000, 1024, FakeScheduler.endingAfter(Duration.ofMillis(100), ""));
        agent.gatherAfterStart(Duration.ofHours(1));
        agent.start();

        await().atMost(Duration.ofSeconds(20)).until(() -> heartbeats.stream().anyMatch(b -> b.contains("\"SUCCEEDED\"")));
        assertThat(heartbeats.get(1)).as("the heartbeat after the start reports the attempt ended")
                .contains(JOB.toString()).contains("\"SUCCEEDED\"");
        assertThat(heartbeats).noneMatch(b -> b.contains("\"RUNNING\""));
    }
}
