package io.fleetjobs.scheduler.service;

import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.PlacementStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.InstantSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;

@Configuration(proxyBeanMethods = false)
class SchedulerConfig {
    @Bean
    InstantSource clock() {
        return InstantSource.system();
    }

    @Bean
    JobStore jobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock, MeterRegistry meters) {
        return new JobStore(jdbc, transactions, clock, meters);
    }

    @Bean
    PlacementStore placementStore(JdbcClient jdbc, JobStore jobs) {
        return new PlacementStore(jdbc, jobs);
    }

    @Bean
    MachineStore machineStore(JdbcClient jdbc, InstantSource clock) {
        return new MachineStore(jdbc, clock);
    }

    @Bean
    SchedulerCycle schedulerCycle(JobStore jobs, PlacementStore placement, SchedulerProperties properties,
            MeterRegistry meters) {
        return new SchedulerCycle(jobs, placement, new PlacementEngine(), properties, meters);
    }

    @Bean
    SchedulerLoop schedulerLoop(SchedulerCycle cycle, PlacementStore placement, JdbcClient jdbc,
            SchedulerProperties properties, InstantSource clock, MeterRegistry meters) {
        return new SchedulerLoop(cycle, placement, jdbc, properties, clock, meters);
    }
}
