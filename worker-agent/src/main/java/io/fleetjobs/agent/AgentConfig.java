package io.fleetjobs.agent;

import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.simulate.MachinesCsv;
import io.fleetjobs.agent.simulate.SimulatedMachine;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.SplittableRandom;
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
        return new Agent(properties, resources, scheduler, runner, clock,
                CredentialFile.forMachine(properties.workDir(), resources.machineId()));
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
            var url = java.net.URI.create(properties.schedulerUrl());
            if (!("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
                throw new IllegalArgumentException("not an http(s) URL");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("jobs.worker.scheduler-url (JOBS_WORKER_SCHEDULER_URL) must be the scheduler's "
                    + "http(s) URL, e.g. http://scheduler:8082, not '" + properties.schedulerUrl() + "'");
        }
    }
}
