package io.fleetjobs.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetjobs.testsupport.Api;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Gangs with real agents and processes (issue 20): a job of three replicas on three machines of one core each. Each
 * replica's process tells the witness its attempt, rank, world size, peers and rendezvous, as its environment says
 * them; all three see distinct ranks 0, 1 and 2 of a world of 3 and the same peers. When one replica fails, the
 * others' processes are ended (SIGTERM), and the gang runs again as a whole.
 */
class GangTest {
    private static final String REGION = "gang";
    private static Platform platform;
    private static Api user;

    @BeforeAll
    static void start() {
        platform = new Platform(Map.of());
        user = platform.tenant("gangs");
        for (String m : List.of("gang-a", "gang-b", "gang-c")) {
            platform.agent(m, platform.schedulerPort(), "--jobs.worker.region=" + REGION, "--jobs.worker.cpu=1",
                    "--jobs.worker.address=" + m + ".test");
        }
    }

    @AfterAll
    static void stop() {
        platform.close();
    }

    private static String submit(String name, String script) {
        var created = user.post("/api/v1/jobs", """
                {"name": "%s", "replicas": 3, "resources": {"cpu": 1, "memoryMb": 64},
                 "placement": {"region": "%s", "gangScope": "region"},
                 "retry": {"maxAttempts": 3, "retryOnExitCodes": [3], "backoffSeconds": 1, "maxBackoffSeconds": 1},
                 "execution": {"command": ["bash", "-c", "%s"]}}""".formatted(name, REGION, script));
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().get("replicas").asInt()).isEqualTo(3);
        return created.field("id");
    }

    /** The first line each replica sends: {@code name attempt rank worldSize peers masterAddr masterPort}. */
    private static String hello(String name, int witnessPort) {
        return "exec 3<>/dev/tcp/127.0.0.1/" + witnessPort + "; echo " + name + " $JOBS_ATTEMPT $FLEETJOBS_RANK"
                + " $FLEETJOBS_WORLD_SIZE $FLEETJOBS_PEERS $MASTER_ADDR $MASTER_PORT >&3; ";
    }

    private static JsonNode job(String id) {
        return user.get("/api/v1/jobs/" + id).json();
    }

    private static List<JsonNode> attempts(String id) {
        List<JsonNode> items = new ArrayList<>();
        user.get("/api/v1/jobs/" + id + "/attempts").json().get("items").forEach(items::add);
        return items;
    }

    @Test
    void eachReplicaSeesItsOwnRankTheWorldSizeAndThePeers() throws Exception {
        try (SilentPartitionTest.Witness witness = new SilentPartitionTest.Witness()) {
            String id = submit("ranks", hello("ranks", witness.port()) + "exit 0");
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                    .until(() -> Set.of("SUCCEEDED", "FAILED", "CANCELED").contains(job(id).get("state").asString()));
            assertThat(job(id).get("state").asString()).as("%s %s", job(id), attempts(id)).isEqualTo("SUCCEEDED");

            List<SilentPartitionTest.Life> heard = witness.startingWith("ranks ");
            assertThat(heard).hasSize(3);
            Set<String> ranks = new HashSet<>();
            Set<String> peers = new HashSet<>();
            for (SilentPartitionTest.Life life : heard) {
                String[] said = life.attempt().split(" ");
                assertThat(said).as(life.attempt()).hasSize(7);
                assertThat(said[1]).isEqualTo("1");
                ranks.add(said[2]);
                assertThat(said[3]).as("world size").isEqualTo("3");
                peers.add(said[4]);
                List<String> listed = List.of(said[4].split(","));
                assertThat(listed).hasSize(3);
                assertThat(listed).allMatch(p -> p.matches("gang-[abc]\\.test:" + said[6]));
                assertThat(said[5] + ":" + said[6]).as("the rendezvous is replica 0's").isEqualTo(listed.getFirst());
            }
            assertThat(ranks).containsExactlyInAnyOrder("0", "1", "2");
            assertThat(peers).as("every replica sees the same peers").hasSize(1);

            List<JsonNode> attempts = attempts(id);
            assertThat(attempts).hasSize(3);
            assertThat(attempts).extracting(a -> a.get("replica").asInt()).containsExactly(0, 1, 2);
            assertThat(attempts).extracting(a -> a.get("worldSize").asInt()).containsOnly(3);
            assertThat(attempts).extracting(a -> a.get("machineId").asString()).doesNotHaveDuplicates();
            assertThat(attempts).extracting(a -> a.get("state").asString()).containsOnly("SUCCEEDED");
        }
    }

    /**
     * Each replica's output is read by its rank, followed while it runs and as its tails after: following a gang's
     * logs read three attempt rows where one was expected (a 500), and only replica 0's tails could be read at all.
     */
    @Test
    void eachReplicasOutputIsReadAndFollowedByItsRank() throws Exception {
        // each replica prints, runs on a while (followed, most likely, as it runs), prints again and ends; a follow from
        // offset 0 reads the whole output whether it began before the end or after it
        String id = submit("logs", "echo I am rank $FLEETJOBS_RANK; sleep 1; echo bye from rank $FLEETJOBS_RANK");
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                .until(() -> attempts(id).size() == 3);
        HttpClient http = HttpClient.newHttpClient();
        List<CompletableFuture<HttpResponse<String>>> follows = new ArrayList<>();
        for (int replica = 0; replica < 3; replica++) {
            follows.add(http.sendAsync(user.request("GET", "/api/v1/jobs/" + id + "/attempts/1/logs?follow=true&offset=0"
                            + "&replica=" + replica).header("Accept", "text/plain").timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        for (int replica = 0; replica < 3; replica++) {
            var followed = follows.get(replica).get(60, TimeUnit.SECONDS);
            assertThat(followed.statusCode()).as(followed.body()).isEqualTo(200);
            assertThat(followed.body()).isEqualTo("I am rank " + replica + "\nbye from rank " + replica + "\n");
            var tails = user.get("/api/v1/jobs/" + id + "/attempts/1/logs?replica=" + replica);
            assertThat(tails.json().get("stdout").asString()).isEqualTo(followed.body());
        }
        assertThat(user.get("/api/v1/jobs/" + id + "/attempts/1/logs").json().get("stdout").asString())
                .as("no replica named: replica 0").isEqualTo("I am rank 0\nbye from rank 0\n");
        assertThat(user.get("/api/v1/jobs/" + id + "/attempts/1/logs?replica=3").status()).isEqualTo(404);
        var negative = user.get("/api/v1/jobs/" + id + "/attempts/1/logs?replica=-1");
        assertThat(negative.status()).isEqualTo(400);
        assertThat(negative.json().get("errors").get(0).get("field").asString()).isEqualTo("replica");
    }

    @Test
    void oneFailingReplicaEndsTheOthersAndTheGangIsRetriedAsAWhole() throws Exception {
        try (SilentPartitionTest.Witness witness = new SilentPartitionTest.Witness()) {
            // on the first attempt, rank 1 fails a little after starting while the others run until told to stop
            String script = hello("fails", witness.port())
                    + "if [ $JOBS_ATTEMPT = 1 ]; then if [ $FLEETJOBS_RANK = 1 ]; then sleep 2; exit 3; fi;"
                    + " trap 'exit 143' TERM; while true; do sleep 0.1; done; fi; exit 0";
            String id = submit("fails", script);
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
                    .until(() -> Set.of("SUCCEEDED", "FAILED", "CANCELED").contains(job(id).get("state").asString()));
            assertThat(job(id).get("state").asString()).as("%s %s", job(id), attempts(id)).isEqualTo("SUCCEEDED");

            List<SilentPartitionTest.Life> first = witness.startingWith("fails 1 ");
            List<SilentPartitionTest.Life> second = witness.startingWith("fails 2 ");
            assertThat(first).as("the first attempt's processes are all gone").hasSize(3)
                    .allMatch(SilentPartitionTest.Life::ended);
            assertThat(second).as("the second attempt ran all three replicas").hasSize(3);
            long lastOfFirst = first.stream().mapToLong(SilentPartitionTest.Life::closedAt).max().orElseThrow();
            long firstOfSecond = second.stream().mapToLong(SilentPartitionTest.Life::connectedAt).min().orElseThrow();
            assertThat(lastOfFirst).as("the retry started only after every replica of the first had ended")
                    .isLessThan(firstOfSecond);

            List<JsonNode> attempts = attempts(id);
            assertThat(attempts).hasSize(6);
            List<JsonNode> ofFirst = attempts.stream().filter(a -> a.get("attempt").asInt() == 1).toList();
            assertThat(ofFirst).filteredOn(a -> a.get("replica").asInt() == 1).singleElement()
                    .satisfies(a -> assertThat(a.get("exitCode").asInt()).isEqualTo(3))
                    .satisfies(a -> assertThat(a.get("failureReason").asString()).isEqualTo("EXIT_CODE"));
            assertThat(ofFirst).filteredOn(a -> a.get("replica").asInt() != 1)
                    .extracting(a -> a.get("failureReason").asString()).containsOnly("GANG_MEMBER_FAILED");
            assertThat(ofFirst).filteredOn(a -> a.get("replica").asInt() != 1)
                    .extracting(a -> a.get("exitCode").asInt()).as("ended by their SIGTERM trap").containsOnly(143);
        }
    }
}
