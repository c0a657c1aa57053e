package io.fleetjobs.reconciler;

import io.fleetjobs.reconciler.domain.AutoDrain;
import io.fleetjobs.reconciler.domain.Liveness;
import io.fleetjobs.reconciler.sweeps.AllocationSweep;
import io.fleetjobs.reconciler.sweeps.AutoDrainSweep;
import io.fleetjobs.reconciler.sweeps.ExpiredLeaseSweep;
import io.fleetjobs.reconciler.sweeps.MachineLivenessSweep;
import io.fleetjobs.reconciler.sweeps.RetentionSweep;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.CadenceStore;
import io.fleetjobs.store.HeartbeatWatermarks;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.RepairStore;
import io.fleetjobs.store.RetentionStore;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Function;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The sweeps and their loop; the clock and the stores come from job-store's StoreAutoConfiguration. */
@Configuration(proxyBeanMethods = false)
class ReconcilerConfig {
    /**
     * A scheduler replica that wrote no heartbeat watermark this long is taken for gone (a writer flushes every
     * 200 ms): a killed replica holds the judgement of silence back no longer than this.
     */
    static final Duration WATERMARK_LIVE = Duration.ofSeconds(3);

    @Bean
    ReconcilerLoop reconcilerLoop(JobStore jobs, RepairStore repair, AttemptReports reports, MachineStore machines,
            RetentionStore retention, CadenceStore cadences,
            HeartbeatWatermarks watermarks, InstantSource clock, ReconcilerProperties p, RetentionProperties kept,
            AgentFenceProperties fence, MeterRegistry meters,
            CircuitBreakerRegistry breakers,
            RetryRegistry retries) {
        // refuses to start with settings under which a silent machine's jobs could run twice at once
        LoggerFactory.getLogger(ReconcilerConfig.class).info("fencing budget: {}",
                fence.budget(p.lostAfter()).requireHolds());
        Liveness liveness = new Liveness(p.suspectAfter(), p.lostAfter(), p.massSilenceShare(), p.massSilenceMinMachines());
        // the scheduler's replicas may hand out a replaced lease until they next read the cadence (cadence-refresh,
        // twice for safety); its processes are surely gone a kill grace, a hold and the skew margin after it ends
        Duration beyondLease = fence.cadenceRefresh().multipliedBy(2).plus(fence.killGrace()).plus(fence.maxWait())
                .plus(fence.clockSkewMargin());
        Function<Instant, Duration> extraLease = now -> cadences.current()
                .map(row -> row.longestLeaseAt(now, beyondLease).minus(fence.leaseTtl()))
                .filter(Duration::isPositive).orElse(Duration.ZERO);
        return new ReconcilerLoop(List.of(
                new MachineLivenessSweep(repair, reports, liveness, meters, extraLease,
                        now -> watermarks.judgeAt(now, WATERMARK_LIVE)),
                new ExpiredLeaseSweep(repair, reports, meters, now -> watermarks.judgeAt(now, WATERMARK_LIVE)),
                new AutoDrainSweep(repair, machines, new AutoDrain(p.drainStreak(), p.drainSharePerHour()),
                        Duration.ofMinutes(10), meters),
                new AllocationSweep(jobs, repair, meters, p.allocationCheck()),
                new RetentionSweep(retention, kept.retention(), meters)), clock, p, meters, breakers.circuitBreaker("database"),
                retries.retry("database"));
    }
}
