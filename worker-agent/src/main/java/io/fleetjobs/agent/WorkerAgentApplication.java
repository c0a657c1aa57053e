package io.fleetjobs.agent;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The worker agent: one per machine. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class WorkerAgentApplication {
    public static void main(String[] args) {
        SpringApplication.run(WorkerAgentApplication.class, args);
    }
}
