package io.fleetjobs.reconciler.sweeps;

import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.reconciler.domain.Liveness;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.RepairStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Machines without a heartbeat become SUSPECT, then LOST; a LOST machine's live attempts end
 * MACHINE_LOST (through the same fenced path as an agent's report) and are retried elsewhere. A
 * machine heard again recovers to READY; if it still runs attempts that ended meanwhile, its next
 * heartbeat's reply tells it to kill them. See {@link Liveness} for the rules and mass silence.
 */
public final class MachineLivenessSweep implements Sweep {
    private static final Logger log = LoggerFactory.getLogger(MachineLivenessSweep.class);

    private final RepairStore repair;
    private final AttemptReports reports;
    private final Liveness liveness;
    private final MeterRegistry meters;
    private final Function<Instant, Duration> extraLease;
    private final UnaryOperator<Instant> judgeAt;
    private final Map<String, AtomicInteger> silentRegions = new ConcurrentHashMap<>();

    public MachineLivenessSweep(RepairStore repair, AttemptReports reports, Liveness liveness, MeterRegistry meters) {
        this(repair, reports, liveness, meters, now -> Duration.ZERO, now -> now);
    }

    /**
     * @param extraLease how much longer than the base the longest lease an agent may hold at a time is (a large
     *                   fleet's slower cadence): the TTLs grow by it
     * @param judgeAt    the time silence is judged at: how far the scheduler's replicas have written what they heard
     *                   ({@code HeartbeatWatermarks}), so that their own lag never reads as the machines' silence
     */
    public MachineLivenessSweep(RepairStore repair, AttemptReports reports, Liveness liveness, MeterRegistry meters,
            Function<Instant, Duration> extraLease,
            UnaryOperator<Instant> judgeAt) {
        this.extraLease = extraLease;
        this.judgeAt = judgeAt;
        this.repair = repair;
        this.reports = reports;
        this.liveness = liveness;
        this.meters = meters;
    }

    @Override
    public String name() {
        return "machine-liveness";
    }

    @Override
    public int run(Instant now) {
        Instant heardUntil = judgeAt.apply(now);
        Map<String, RepairStore.MachineHeartbeat> read = new HashMap<>();
        List<Liveness.Machine> machines = repair.liveness().stream().map(m -> {
            read.put(m.id(), m);
            return new Liveness.Machine(m.id(), m.region(), m.status(), m.lastHeartbeatAt());
        }).toList();
        Liveness.Verdict verdict = liveness.classify(machines, heardUntil, extraLease.apply(now));
        machines.forEach(m -> silenceGauge(m.region())); // every region's gauge from 0, so that alerts see it
        recordMassSilence(verdict.massSilence());
        int repaired = 0;
        for (Liveness.Action action : verdict.actions()) {
            RepairStore.MachineHeartbeat m = read.get(action.machine().id());
            switch (action) {
                case Liveness.Action.Recover r -> {
                    if (repair.setStatus(m, MachineStatus.READY, null)) {
                        count("machine-recovered");
                        log.info("machine {} is heard again: READY", m.id());
                        repaired++;
                    }
                }
                case Liveness.Action.Suspect s -> {
                    if (repair.setStatus(m, MachineStatus.SUSPECT, s.reason())) {
                        count("machine-suspect");
                        repaired++;
                    }
                }
                case Liveness.Action.Hold h -> {
                    if (m.status() == MachineStatus.READY) {
                        repair.setStatus(m, MachineStatus.SUSPECT, h.reason());
                    } else if (!h.reason().equals(m.statusReason())) {
                        repair.setReason(m.id(), m.status(), h.reason());
                    }
                    count("machine-held-mass-silence");
                }
                case Liveness.Action.Lose l -> {
                    if (repair.setStatus(m, MachineStatus.LOST, l.reason())) {
                        int ended = reports.endLiveAttempts(m.id(), FailureReason.MACHINE_LOST);
                        count("machine-lost");
                        meters.counter("reconciler.actions", "kind", "attempt-machine-lost").increment(ended);
                        log.warn("machine {} lost ({}); {} attempts ended MACHINE_LOST", m.id(), l.reason(), ended);
                        repaired += 1 + ended;
                    }
                }
            }
        }
        // a machine lost earlier whose attempts could not all be ended then (a crash between the two steps)
        for (RepairStore.MachineHeartbeat m : read.values()) {
            if (m.status() == MachineStatus.LOST) {
                repaired += reports.endLiveAttempts(m.id(), FailureReason.MACHINE_LOST);
            }
        }
        return repaired;
    }

    private void recordMassSilence(Map<String, int[]> massSilence) {
        silentRegions.forEach((region, gauge) -> {
            if (!massSilence.containsKey(region)) {
                gauge.set(0);
            }
        });
        massSilence.forEach((region, counts) -> {
            AtomicInteger gauge = silenceGauge(region);
            if (gauge.get() == 0) { // it starts now
                log.warn("region {}: {} of {} machines silent at once; not declaring them lost", region, counts[0], counts[1]);
            }
            gauge.set(counts[0]);
        });
    }

    private AtomicInteger silenceGauge(String region) {
        return silentRegions.computeIfAbsent(region, r -> {
            AtomicInteger gauge = new AtomicInteger();
            Gauge.builder("reconciler.mass.silence.machines", gauge, AtomicInteger::get).tags(Tags.of("region", r))
                    .description("machines of a region held SUSPECT because too many went silent at once")
                    .register(meters);
            return gauge;
        });
    }

    private void count(String kind) {
        Counter.builder("reconciler.actions").tag("kind", kind).register(meters).increment();
    }
}
