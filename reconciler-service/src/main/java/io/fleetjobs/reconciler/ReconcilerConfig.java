package io.fleetjobs.reconciler;

import io.fleetjobs.reconciler.domain.AutoDrain;
import io.fleetjobs.reconciler.domain.Liveness;
import io.fleetjobs.reconciler.sweeps.AllocationSweep;
import io.fleetjobs.reconciler.sweeps.AutoDrainSweep;
import io.fleetjobs.reconciler.sweeps.ExpiredLeaseSweep;
import io.fleetjobs.reconciler.sweeps.MachineLivenessSweep;
import io.fleetjobs.reconciler.sweeps.OverdueAttemptSweep;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.RepairStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;

@Configuration(proxyBeanMethods = false)
class ReconcilerConfig {
    @Bean
    InstantSource clock() {
        return InstantSource.system();
    }

    @Bean
    JobStore jobStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock, MeterRegistry meters) {
        return new JobStore(jdbc, transactions, clock, meters);
    }

    @Bean
    ReconcilerLoop reconcilerLoop(JdbcClient jdbc, JobStore jobs, InstantSource clock, ReconcilerProperties p,
            MeterRegistry meters, io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry breakers,
            io.github.resilience4j.retry.RetryRegistry retries) {
        RepairStore repair = new RepairStore(jdbc);
        AttemptReports reports = new AttemptReports(jdbc, jobs, new SecureRandom(), meters);
        Liveness liveness = new Liveness(p.suspectAfter(), p.lostAfter(), p.massSilenceShare(), p.massSilenceMinMachines());
        return new ReconcilerLoop(List.of(
                new MachineLivenessSweep(repair, reports, liveness, meters),
                new ExpiredLeaseSweep(repair, reports, meters),
                new OverdueAttemptSweep(repair, reports, p.timeoutSlack(), meters),
                new AutoDrainSweep(repair, new MachineStore(jdbc, clock), new AutoDrain(p.drainStreak(), p.drainSharePerHour()),
                        Duration.ofMinutes(10), meters),
                new AllocationSweep(jobs, repair, meters)), clock, p, meters, breakers.circuitBreaker("database"),
                retries.retry("database"));
    }
}
