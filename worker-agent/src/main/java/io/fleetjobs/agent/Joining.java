package io.fleetjobs.agent;

import io.fleetjobs.model.agent.AgentProtocol.JoinRequest;
import io.fleetjobs.model.agent.AgentProtocol.JoinResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;

/** How an agent joins: its machine described, its kept credential presented, the one it is given kept. */
final class Joining {
    private final Integer maxLiveAttempts;
    private final List<String> isolationGaps;
    private static final Logger log = LoggerFactory.getLogger(Joining.class);

    private final WorkerProperties properties;
    private final MachineResources resources;
    private final SchedulerClient scheduler;
    private final String isolation;
    private final InstantSource clock;
    private final MonotonicClock monotonic;
    private final CredentialFile credentials;

    /**
     * @param isolation   how the agent's runner holds attempts apart, as the join says it
     * @param credentials where the machine's credential is kept across restarts; null: not kept (the simulator)
     * @param maxLiveAttempts the most attempts the machine runs at once, as the join says it; null: the scheduler's default
     * @param isolationGaps what the sandbox does not hold on this machine, as the join says it; null: not said
     */
    Joining(WorkerProperties properties, MachineResources resources, SchedulerClient scheduler, String isolation,
            InstantSource clock, MonotonicClock monotonic, CredentialFile credentials, Integer maxLiveAttempts,
            List<String> isolationGaps) {
        this.maxLiveAttempts = maxLiveAttempts;
        this.isolationGaps = isolationGaps == null ? null : List.copyOf(isolationGaps);
        this.properties = properties;
        this.resources = resources;
        this.scheduler = scheduler;
        this.isolation = isolation;
        this.clock = clock;
        this.monotonic = monotonic;
        this.credentials = credentials;
    }

    /** The address peers reach this machine's jobs at: the one configured, else the host's name (null if unknown). */
    static String address(String configured) {
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return null;
        }
    }

    /** A join answered, and when it was sent (the monotonic clock): the lease it grants counts from then. */
    record Joined(JoinResponse identity, long sentAt) {
    }

    /**
     * Joins, retrying while the scheduler cannot be reached, up to the join timeout. The join presents the
     * machine's credential kept from an earlier incarnation, if any, and keeps the one it is given.
     */
    Joined join() {
        Instant deadline = clock.instant().plus(properties.joinTimeout());
        String kept = keptCredential();
        JoinRequest request = new JoinRequest(resources.machineId(), properties.region(), properties.labels(),
                resources.cpuMillis(), resources.memoryMb(), resources.gpuCount(), resources.gpuType(),
                isolation, resources.gpus(), kept, address(properties.address()), maxLiveAttempts, isolationGaps);
        int refusedAsLive = 0;
        JoinResponse identity;
        while (true) {
            long sentAt = monotonic.nanos();
            try {
                try {
                    identity = scheduler.join(properties.joinToken(), request);
                } catch (HttpClientErrorException.BadRequest e) {
                    if (request.credential() == null) {
                        throw e;
                    }
                    // a scheduler older than the field refuses what it does not know: join as before
                    log.warn("the scheduler refused the join with the kept credential ({}); joining without it",
                            e.getStatusCode());
                    request = request.withoutCredential();
                    identity = scheduler.join(properties.joinToken(), request);
                }
                keep(identity.credential(), kept);
                log.info("joined as machine {} (incarnation {}): {} cpu millis, {} MiB, {} GPUs {}, at most {} attempts at once",
                        identity.machineId(), identity.incarnation(), resources.cpuMillis(), resources.memoryMb(),
                        resources.gpuCount(), resources.gpuType() == null ? "" : resources.gpuType(),
                        maxLiveAttempts == null ? "(the scheduler's default)" : maxLiveAttempts);
                return new Joined(identity, sentAt);
            } catch (HttpClientErrorException.Conflict e) {
                // the machine is live to the scheduler and this agent holds no credential it accepts (killed before
                // it kept the last one): the join is admitted once the machine is lost and its attempts ended
                if (clock.instant().isAfter(deadline)) {
                    throw new IllegalStateException("the scheduler at " + properties.schedulerUrl() + " kept refusing "
                            + "the join within " + properties.joinTimeout() + ": " + e.getResponseBodyAsString()
                            + "; an operator resets a machine whose credential was lost (POST /api/v1/machines/{id}/reset)");
                }
                if (refusedAsLive++ == 0) {
                    log.warn("the scheduler refused the join for now ({}); asking again until the machine is lost",
                            e.getResponseBodyAsString());
                }
                pause(Duration.ofSeconds(1));
            } catch (HttpClientErrorException e) {
                throw new IllegalStateException("the scheduler at " + properties.schedulerUrl() + " refused the join ("
                        + e.getStatusCode() + "): " + e.getResponseBodyAsString()
                        + "; check jobs.worker.join-token (JOBS_WORKER_JOIN_TOKEN) against the control plane's JOBS_AGENT_JOIN_TOKEN");
            } catch (ResourceAccessException | HttpServerErrorException e) {
                // unreachable, or answering 5xx (a scheduler short of database connections): both pass
                if (clock.instant().isAfter(deadline)) {
                    throw new IllegalStateException("the scheduler at " + properties.schedulerUrl() + " took no join within "
                            + properties.joinTimeout() + " (last: " + e.getMessage() + "); check jobs.worker.scheduler-url"
                            + " (JOBS_WORKER_SCHEDULER_URL) and the scheduler's health, or raise jobs.worker.join-timeout");
                }
                pause(Duration.ofMillis(500));
            }
        }
    }

    private String keptCredential() {
        if (credentials == null) {
            return null;
        }
        try {
            return credentials.read().orElse(null);
        } catch (UncheckedIOException e) {
            log.warn("{}; joining without it", e.getMessage());
            return null;
        }
    }

    private void keep(String credential, String kept) {
        if (credentials == null || credential == null || credential.equals(kept)) {
            return;
        }
        try {
            credentials.write(credential);
        } catch (UncheckedIOException e) {
            log.warn("{}: the next start joins without it", e.getMessage());
        }
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
