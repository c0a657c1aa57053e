package io.fleetjobs.reconciler.metrics;

import io.fleetjobs.model.BoundedTagValues;
import io.fleetjobs.model.MachineStatus;
import io.fleetjobs.store.FleetStatistics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The fleet and the queues as gauges, read by {@link FleetStatistics}'s few aggregate queries per
 * {@link #refresh()} (every few seconds, never per scrape or per job). Only reconciler-service registers
 * them, so several scheduler replicas never double-count a queue or a machine:
 *
 * <table>
 *   <caption>gauges (Prometheus names)</caption>
 *   <tr><td>{@code fleet_queue_depth{queue}}</td><td>jobs QUEUED</td></tr>
 *   <tr><td>{@code fleet_queue_oldest_seconds{queue}}</td><td>how long the oldest QUEUED job has been queued</td></tr>
 *   <tr><td>{@code fleet_queue_unschedulable{queue, reason}}</td><td>QUEUED jobs the scheduler could not place,
 *       by the first kind of obstacle their reason names</td></tr>
 *   <tr><td>{@code fleet_machines{region, gpu_type, status}}</td><td>machines</td></tr>
 *   <tr><td>{@code fleet_capacity_cpu_cores}, {@code fleet_capacity_memory_bytes}, {@code fleet_capacity_gpus},
 *       and {@code fleet_allocated_*} alike {@code {region, gpu_type, status}}</td><td>capacity and what attempts hold,
 *       machines not LOST</td></tr>
 *   <tr><td>{@code fleet_heartbeat_age_seconds{region, stat=p50|p99|max}}</td><td>age of the last heartbeat of the
 *       machines not LOST</td></tr>
 * </table>
 *
 * <p>Queue names are the users' to choose: the first {@code jobs.metrics.max-queue-tags} (50) seen are tags of
 * their own, the rest add up under {@code queue="other"} ({@link BoundedTagValues}).
 */
public final class FleetGauges {
    private static final String NONE = "none";

    private final FleetStatistics statistics;
    private final BoundedTagValues queueTags;
    private final InstantSource clock;
    private final GaugeTable depth;
    private final GaugeTable oldest;
    private final GaugeTable unschedulable;
    private final GaugeTable machines;
    private final Map<String, GaugeTable> capacity = new HashMap<>();
    private final GaugeTable heartbeatAge;

    public FleetGauges(JdbcClient jdbc, InstantSource clock, MeterRegistry meters) {
        this(new FleetStatistics(jdbc), clock, meters);
    }

    public FleetGauges(FleetStatistics statistics, InstantSource clock, MeterRegistry meters) {
        this(statistics, clock, meters, new BoundedTagValues(BoundedTagValues.DEFAULT_MAX));
    }

    /** @param queueTags the queue names the queue gauges tag by (a bounded number; the rest add up under "other") */
    public FleetGauges(FleetStatistics statistics, InstantSource clock, MeterRegistry meters, BoundedTagValues queueTags) {
        this.queueTags = queueTags;
        this.statistics = statistics;
        this.clock = clock;
        depth = new GaugeTable("fleet.queue.depth", "jobs QUEUED, by queue", meters);
        oldest = new GaugeTable("fleet.queue.oldest.seconds", "how long the oldest QUEUED job of a queue has waited",
                meters);
        unschedulable = new GaugeTable("fleet.queue.unschedulable",
                "QUEUED jobs no machine could take at their last try, by the obstacle named first", meters);
        machines = new GaugeTable("fleet.machines", "machines, by region, GPU type and status", meters);
        for (String what : new String[] {"capacity", "allocated"}) {
            capacity.put(what + ".cpu", new GaugeTable("fleet." + what + ".cpu.cores", "CPU cores, " + what, meters));
            capacity.put(what + ".memory", new GaugeTable("fleet." + what + ".memory.bytes", "memory, " + what, meters));
            capacity.put(what + ".gpu", new GaugeTable("fleet." + what + ".gpus", "GPUs, " + what, meters));
        }
        heartbeatAge = new GaugeTable("fleet.heartbeat.age.seconds",
                "age of machines' last heartbeat (machines not LOST), by region: median, 99th percentile, oldest", meters);
    }

    /** Reads the queues and the fleet once and sets every gauge. */
    public void refresh() {
        Instant now = clock.instant();
        refreshQueues(now);
        refreshMachines();
        refreshHeartbeats(now);
    }

    private void refreshQueues(Instant now) {
        Map<Tags, Double> depths = new HashMap<>();
        Map<Tags, Double> ages = new HashMap<>();
        Map<Tags, Double> stuck = new HashMap<>();
        for (FleetStatistics.QueuedGroup g : statistics.queued(now)) {
            Tags queue = Tags.of("queue", queueTags.tag(g.queue()));
            depths.merge(queue, (double) g.count(), Double::sum);
            ages.merge(queue, Math.max(0, g.oldestSeconds()), Math::max);
            if (g.obstacle() != null) {
                stuck.merge(queue.and("reason", g.obstacle()), (double) g.count(), Double::sum);
            }
        }
        depth.set(depths);
        oldest.set(ages);
        unschedulable.set(stuck);
    }

    private void refreshMachines() {
        Map<Tags, Double> counts = new HashMap<>();
        Map<String, Map<Tags, Double>> amounts = new HashMap<>();
        capacity.keySet().forEach(k -> amounts.put(k, new HashMap<>()));
        for (FleetStatistics.MachineGroup g : statistics.machines()) {
            Tags tags = Tags.of("region", g.region(), "gpu_type", g.gpuType() == null ? NONE : g.gpuType(),
                    "status", g.status().name());
            counts.put(tags, (double) g.count());
            if (g.status() == MachineStatus.LOST) {
                continue;
            }
            amounts.get("capacity.cpu").put(tags, g.cpuMillis() / 1000.0);
            amounts.get("capacity.memory").put(tags, g.memoryMb() * 1024.0 * 1024.0);
            amounts.get("capacity.gpu").put(tags, (double) g.gpus());
            amounts.get("allocated.cpu").put(tags, g.allocCpuMillis() / 1000.0);
            amounts.get("allocated.memory").put(tags, g.allocMemoryMb() * 1024.0 * 1024.0);
            amounts.get("allocated.gpu").put(tags, (double) g.allocGpus());
        }
        machines.set(counts);
        capacity.forEach((k, table) -> table.set(amounts.get(k)));
    }

    private void refreshHeartbeats(Instant now) {
        Map<Tags, Double> ages = new HashMap<>();
        for (FleetStatistics.HeartbeatAges a : statistics.heartbeatAges(now)) {
            Tags region = Tags.of("region", a.region());
            ages.put(region.and("stat", "p50"), a.p50());
            ages.put(region.and("stat", "p99"), a.p99());
            ages.put(region.and("stat", "max"), a.max());
        }
        heartbeatAge.set(ages);
    }
}
