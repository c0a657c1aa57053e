package io.fleetjobs.agent;

import io.fleetjobs.agent.process.Egress;
import io.fleetjobs.agent.process.EgressRefresh;
import io.fleetjobs.agent.process.Isolation;
import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.simulate.MachinesCsv;
import io.fleetjobs.agent.simulate.SimulatedMachine;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;

@Configuration(proxyBeanMethods = false)
class AgentConfig {
    private static final Logger log = LoggerFactory.getLogger(AgentConfig.class);
    static final String OLD_KAFKA_SETTING = "jobs.worker.kafka-bootstrap-servers";

    /** The agent of this machine or, with {@code jobs.worker.simulate.machines}, the fleet simulator. */
    @Bean
    SmartLifecycle worker(WorkerProperties properties, RestClient.Builder http, Environment environment) {
        checkSchedulerUrl(properties);
        warnIfKafkaSet(environment);
        InstantSource clock = InstantSource.system();
        if (properties.simulating()) {
            List<SimulatedMachine> machines = MachinesCsv.read(properties.simulate().machines());
            return new SimulatedFleet(properties, machines, http, clock, new SplittableRandom());
        }
        MachineResources resources = MachineResources.resolve(properties);
        SchedulerClient scheduler = new SchedulerClient(http, properties.schedulerUrl(),
                properties.heartbeatInterval().plus(HeartbeatTiming.SLACK)); // until a join says the lease
        ProcessRunner runner = ProcessRunner.forMachine(properties.workDir().resolve(resources.machineId()),
                properties.logCapBytes(), 64 * 1024, properties.killGrace(), clock, properties.passEnv(),
                properties.isolation().settings().forMachine(resources.machineId()));
        runner.holdAllAttemptsTo(resources.memoryMb());
        Optional<Fence> fenced = fenceEgress(properties, resources.machineId(), runner);
        Agent agent = new Agent(properties, resources, scheduler, runner, clock,
                CredentialFile.forMachine(properties.workDir(), resources.machineId()));
        return fenced.<SmartLifecycle>map(fence -> new Fenced(agent, runner, fence.table(), new EgressRefresh(fence.egress(),
                () -> egress(properties, Egress.Resolver.DNS), fresh -> runner.fenceEgress(fence.table(), fresh)),
                properties.isolation().egressRefresh())).orElse(agent);
    }

    /**
     * The agent, whose machine's egress rules go when it stops: its attempts, tied to its process, end with it, and
     * rules left behind would refuse the next attempts on that host ports the platform may no longer use (a later start
     * of the same machine replaces them anyway).
     */
    private static final class Fenced implements SmartLifecycle, AutoCloseable {
        private final SmartLifecycle agent;
        private final ProcessRunner runner;
        private final String table;
        private final EgressRefresh refresh;
        private final Duration every;
        private ScheduledExecutorService refresher;

        Fenced(SmartLifecycle agent, ProcessRunner runner, String table, EgressRefresh refresh, Duration every) {
            this.agent = agent;
            this.runner = runner;
            this.table = table;
            this.refresh = refresh;
            this.every = every;
        }

        /** The agent, and the rules' host names resolved again every {@code every} (none where it is 0). */
        @Override
        public synchronized void start() {
            agent.start();
            if (every.isPositive()) {
                refresher = Executors.newSingleThreadScheduledExecutor(
                        Thread.ofVirtual().name("egress-refresh").factory());
                refresher.scheduleWithFixedDelay(refresh::refresh, every.toMillis(), every.toMillis(),
                        TimeUnit.MILLISECONDS);
            }
        }

        @Override
        public void stop() {
            agent.stop();
            close();
        }

        /** Also when the context closes without having started it (a join refused at start): Spring calls close. */
        @Override
        public synchronized void close() {
            if (refresher != null) {
                refresher.shutdownNow();
                try { // a refresh under way would make the table again after its removal below
                    refresher.awaitTermination(15, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                refresher = null;
            }
            runner.unfenceEgress(table).ifPresent(why -> log.warn("cannot remove nftables table {}: {}", table, why));
        }

        @Override
        public boolean isRunning() {
            return agent.isRunning();
        }
    }

    /**
     * Where the machine's sandboxed attempts may not connect: the scheduler's agent API as this agent dials it, and the
     * operator's {@code deny-egress} ({@link Egress}). A list that does not read, or a scheduler host that does not
     * resolve, stops the start; rules nftables refuses (no nft, no CAP_NET_ADMIN) leave a warning naming what a job may
     * then reach.
     */
    /** The table of the machine's egress rules, and the rules in it. */
    private record Fence(String table, Egress egress) {
    }

    private static Optional<Fence> fenceEgress(WorkerProperties properties, String machineId, ProcessRunner runner) {
        if (runner.isolation() != Isolation.SANDBOX) {
            return Optional.empty(); // attempts run as the agent's uid, or root: the warning at start says what is not held
        }
        Egress egress = egress(properties, Egress.Resolver.DNS);
        if (!properties.isolation().egressRules()) {
            log.warn("jobs.worker.isolation.egress-rules=false: attempts may connect to {}", egress.denied());
            return Optional.empty();
        }
        String table = Egress.table(machineId);
        Optional<String> failure = runner.fenceEgress(table, egress);
        if (failure.isPresent()) {
            log.warn("cannot refuse the attempts' connections ({}): a job may connect to {}", failure.get(),
                    egress.denied());
            return Optional.empty();
        }
        log.info("attempts may not connect to {} (nftables table inet {})", egress.denied(), table);
        return Optional.of(new Fence(table, egress));
    }

    /** Where attempts may not connect: the scheduler's agent API as this agent dials it, then {@code deny-egress}. */
    static Egress egress(WorkerProperties properties, Egress.Resolver resolver) {
        List<Egress.Destination> denied = new ArrayList<>(
                Egress.scheduler(URI.create(properties.schedulerUrl()), resolver));
        denied.addAll(Egress.parse(properties.isolation().denyEgress(), resolver));
        return new Egress(denied);
    }

    /**
     * Agents once published their reports on Kafka too; now they report only over the agent API, bound to the
     * machine's credential. An old configuration that still names a broker starts, and is told it is ignored.
     */
    private static void warnIfKafkaSet(Environment environment) {
        String servers = environment.getProperty(OLD_KAFKA_SETTING);
        if (servers != null && !servers.isBlank()) {
            log.warn("{} (JOBS_WORKER_KAFKA_BOOTSTRAP_SERVERS) is set to '{}' and ignored: agents report only over the "
                    + "scheduler's agent API, with the machine's credential; remove the setting", OLD_KAFKA_SETTING, servers);
        }
    }

    private static void checkSchedulerUrl(WorkerProperties properties) {
        try {
            var url = URI.create(properties.schedulerUrl());
            if (!("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
                throw new IllegalArgumentException("not an http(s) URL");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("jobs.worker.scheduler-url (JOBS_WORKER_SCHEDULER_URL) must be the scheduler's "
                    + "http(s) URL, e.g. http://scheduler:8082, not '" + properties.schedulerUrl() + "'");
        }
    }
}
