package io.fleetjobs.reconciler;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The sweeps that repair desired against actual state. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ReconcilerApplication {
    public static void main(String[] args) {
        SpringApplication.run(ReconcilerApplication.class, args);
    }
}
