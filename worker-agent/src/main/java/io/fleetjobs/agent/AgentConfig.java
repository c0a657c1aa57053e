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
