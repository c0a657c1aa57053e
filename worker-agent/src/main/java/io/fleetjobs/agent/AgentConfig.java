package io.fleetjobs.agent;

import io.fleetjobs.agent.process.ProcessRunner;
import java.time.Duration;
import java.time.InstantSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.json.JsonMapper;

@Configuration(proxyBeanMethods = false)
class AgentConfig {
    @Bean
    Agent agent(WorkerProperties properties, RestClient.Builder http, JsonMapper json) {
        MachineResources resources = MachineResources.resolve(properties);
        try {
            var url = java.net.URI.create(properties.schedulerUrl());
            if (!("http".equals(url.getScheme()) || "https".equals(url.getScheme())) || url.getHost() == null) {
                throw new IllegalArgumentException("not an http(s) URL");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("jobs.worker.scheduler-url (JOBS_WORKER_SCHEDULER_URL) must be the scheduler's "
                    + "http(s) URL, e.g. http://scheduler:8082, not '" + properties.schedulerUrl() + "'");
        }
        InstantSource clock = InstantSource.system();
        SchedulerClient scheduler = new SchedulerClient(http, properties.schedulerUrl(),
                properties.heartbeatInterval().plus(Duration.ofSeconds(10)));
        ProcessRunner runner = new ProcessRunner(properties.workDir().resolve(resources.machineId()),
                properties.logCapBytes(), 64 * 1024, properties.killGrace(), clock);
        ReportSink sink = properties.kafkaBootstrapServers() == null || properties.kafkaBootstrapServers().isBlank()
                ? ReportSink.none() : ReportSink.kafka(properties.kafkaBootstrapServers(), json);
        return new Agent(properties, resources, scheduler, runner, sink, clock);
    }
}
