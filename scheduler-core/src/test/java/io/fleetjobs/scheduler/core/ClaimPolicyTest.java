package io.fleetjobs.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Where the next claim starts. Each row is a story told in steps, then where the next claim starts
 * ({@code head}, or after the job {@code priority/n}):
 * <ul>
 *   <li>{@code claim:a}: a worker takes the next claim, called {@code a};</li>
 *   <li>{@code passed:a:500/3}: claim {@code a} ends, having passed over jobs (no room, or over quota) up
 *       to its last job, job 3 of priority 500;</li>
 *   <li>{@code fit:a:500/3}: claim {@code a} ends, having passed over none;</li>
 *   <li>{@code restart}: room appeared; {@code wait:10s}: time passes (retryNoRoom is 30s).</li>
 * </ul>
 */
class ClaimPolicyTest {
    private static final Duration RETRY_NO_ROOM = Duration.ofSeconds(30);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ';', value = {
            "claim:a;                                               head",   // the first claim starts at the head
            "claim:a passed:a:500/3;                                500/3",  // then after the last job of a claim that passed jobs over
            "claim:a fit:a:500/3;                                   head",   // a claim that passed none over leaves the head
            "claim:a passed:a:500/3 claim:b passed:b:500/7;         500/7",  // the resume point moves on
            "claim:a passed:a:500/3 claim:b passed:b:100/1;         100/1",  // lower priorities come later in the order
            "claim:a claim:b passed:b:500/7 passed:a:500/3;         500/7",  // and never moves back
            "claim:a passed:a:500/3 claim:b fit:b:500/9;            500/3",  // a claim that passed none over leaves it
            "claim:a passed:a:500/3 restart;                        head",   // room appeared: the head again
            "claim:a restart passed:a:500/3;                        head",   // a claim begun before a restart moves nothing
            "claim:a passed:a:500/3 restart claim:b passed:b:500/7; 500/7",  // one begun after it does
            "claim:a passed:a:500/3 wait:29s;                       500/3",  // younger than retryNoRoom: still passing over
            "claim:a passed:a:500/3 wait:30s;                       head",   // retryNoRoom after the first pass: the head, room or not
            "claim:a passed:a:500/3 wait:20s claim:b passed:b:500/7 wait:10s; head", // counted from the first pass, not the last
            "claim:a passed:a:500/3 wait:30s claim:b passed:b:500/7; 500/7"}) // a pass after the restart starts a new wait
    void theNextClaimStarts(String steps, String expected) {
        ClaimPolicy policy = new ClaimPolicy(500, RETRY_NO_ROOM);
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        Map<String, ClaimPolicy.Claim> claims = new HashMap<>();
        for (String step : steps.trim().split("\\s+")) {
            String[] part = step.split(":");
            switch (part[0]) {
                case "claim" -> claims.put(part[1], policy.next(now));
                case "passed", "fit" -> policy.claimed(claims.get(part[1]),
                        new ClaimPolicy.Outcome(1, 1, part[0].equals("passed") ? 1 : 0, position(part[2])), now);
                case "restart" -> policy.restart();
                case "wait" -> now = now.plus(Duration.parse("PT" + part[1]));
                default -> throw new IllegalArgumentException(step);
            }
        }
        QueuePosition after = policy.next(now).after();
        assertThat(after).isEqualTo(expected.equals("head") ? null : position(expected));
    }

    @ParameterizedTest(name = "claimed {0}, placed {1}, {2} without room: next claims {3}")
    @CsvSource({
            // claim, placed, no room, next
            "500, 20,  480, 40",    // the fleet is nearly full: twice what fitted
            "500, 5,   495, 32",    // but never less than MIN_CLAIM
            "500, 400, 100, 500",   // nor more than the batch
            "32,  0,   32,  500",   // nothing placed: the whole batch, to get past a head that fits nowhere now
            "32,  32,  0,   64",    // room for all: doubles back towards the batch
            "256, 256, 0,   500",
            "500, 100, 0,   500"})  // jobs that can never fit say nothing about room
    void theClaimSizeFollowsWhatTheLastClaimFound(int claim, int placed, int noRoom, int next) {
        assertThat(ClaimPolicy.nextClaimSize(claim, placed, noRoom, true, 500)).isEqualTo(next);
    }

    @ParameterizedTest(name = "after a claim that placed {0} with {1} without room, the next claims {2}")
    @CsvSource({"20, 480, 40", "0, 32, 500", "500, 0, 500"})
    void thePolicyClaimsWhatTheRuleSays(int placed, int noRoom, int next) {
        ClaimPolicy policy = new ClaimPolicy(500, RETRY_NO_ROOM);
        Instant now = Instant.EPOCH;
        ClaimPolicy.Claim first = policy.next(now);
        assertThat(first.limit()).isEqualTo(500);
        policy.claimed(first, new ClaimPolicy.Outcome(placed, noRoom, noRoom, position("500/1")), now);
        assertThat(policy.next(now).limit()).isEqualTo(next);
    }

    /** "500/3": job 3 of priority 500. */
    static QueuePosition position(String text) {
        String[] part = text.split("/");
        return new QueuePosition(Integer.parseInt(part[0]), new UUID(0, Long.parseLong(part[1])));
    }
}
