package io.fleetjobs.agent;

import io.fleetjobs.agent.process.ProcessRunner;
import io.fleetjobs.agent.simulate.MachinesCsv;
import io.fleetjobs.agent.simulate.SimulatedMachine;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.SplittableRandom;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

@Configuration(proxyBeanMethods = false)
class AgentConfig {
    /** The agent of this machine or, with {@code jobs.worker.simulate.machines}, the fleet simulator. */
    @Bean
    SmartLifecycle worker(WorkerProperties properties, RestClient.Builder http, JsonMapper json) {
        checkSchedulerUrl(properties);
        InstantSource clock = InstantSource.system();
        if (properties.simulating()) {
            List<SimulatedMachine> machines = MachinesCsv.read(properties.simulate().machines());
            return new SimulatedFleet(properties, machines, http, sink(properties, json), clock, new SplittableRandom());
        }
        MachineResources resources = MachineResources.resolve(properties);
        SchedulerClient scheduler = new SchedulerClient(http, properties.schedulerUrl(),
                properties.heartbeatInterval().plus(Duration.ofSeconds(10)));
        ProcessRunner runner = ProcessRunner.forMachine(properties.workDir().resolve(resources.machineId()),
                properties.logCapBytes(), 64 * 1024, properties.killGrace(), clock, properties.passEnv(),
                properties.isolation().settings().forMachine(resources.machineId()));
        return new Agent(properties, resources, scheduler, runner, sink(properties, json), clock);
    }

    private static ReportSink sink(WorkerProperties properties, JsonMapper json) {
        return properties.kafkaBootstrapServers() == null || properties.kafkaBootstrapServers().isBlank()
                ? ReportSink.none() : ReportSink.kafka(properties.kafkaBootstrapServers(), json);
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
