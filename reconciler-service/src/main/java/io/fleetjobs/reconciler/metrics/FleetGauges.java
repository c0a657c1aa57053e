package io.fleetjobs.reconciler.metrics;

import io.fleetjobs.model.MachineStatus;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.sql.Timestamp;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The fleet and the queues as gauges, read from PostgreSQL by a few aggregate queries per
 * {@link #refresh()} (every few seconds, never per scrape or per job). Only reconciler-service registers
 * them, so several scheduler replicas never double-count a queue or a machine:
 *
 * <table>
 *   <caption>gauges (Prometheus names)</caption>
 *   <tr><td>{@code fleet_queue_depth{queue}}</td><td>jobs QUEUED</td></tr>
 *   <tr><td>{@code fleet_queue_oldest_seconds{queue}}</td><td>how long the oldest QUEUED job has been queued</td></tr>
 *   <tr><td>{@code fleet_queue_unschedulable{queue, reason}}</td><td>QUEUED jobs the scheduler could not place,
 *       by the first kind of obstacle their reason names ({@link #REASON})</td></tr>
 *   <tr><td>{@code fleet_machines{region, gpu_type, status}}</td><td>machines</td></tr>
 *   <tr><td>{@code fleet_capacity_cpu_cores}, {@code fleet_capacity_memory_bytes}, {@code fleet_capacity_gpus},
 *       and {@code fleet_allocated_*} alike {@code {region, gpu_type, status}}</td><td>capacity and what attempts hold,
 *       machines not LOST</td></tr>
 *   <tr><td>{@code fleet_heartbeat_age_seconds{region, stat=p50|p99|max}}</td><td>age of the last heartbeat of the
 *       machines not LOST</td></tr>
 * </table>
 */
public final class FleetGauges {
    /**
     * The kind of obstacle a deferred job's reason (scheduler-core's explanation) names first; null for a
     * queued job that was not deferred (new, or waiting out a retry's backoff).
     */
    static final String REASON = """
            case
              when state_reason = 'no machines are registered' then 'no-machines'
              when state_reason like '%quota%' then 'quota'
              when state_reason like '0 of %' then case
                when state_reason like '%outside region%' then 'region'
                when state_reason like '%GPU type%' or state_reason like '%no GPUs%' then 'gpu-type'
                when state_reason like '%label%' then 'labels'
                when state_reason like '%not READY%' or state_reason like '%no heartbeat%' then 'machines-unhealthy'
                else 'capacity' end
            end""";

    private static final String NONE = "none";

    private final JdbcClient jdbc;
    private final InstantSource clock;
    private final GaugeTable depth;
    private final GaugeTable oldest;
    private final GaugeTable unschedulable;
    private final GaugeTable machines;
    private final Map<String, GaugeTable> capacity = new HashMap<>();
    private final GaugeTable heartbeatAge;

    public FleetGauges(JdbcClient jdbc, InstantSource clock, MeterRegistry meters) {
        this.jdbc = jdbc;
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
        Timestamp now = Timestamp.from(clock.instant());
        refreshQueues(now);
        refreshMachines();
        refreshHeartbeats(now);
    }

    private void refreshQueues(Timestamp now) {
        Map<Tags, Double> depths = new HashMap<>();
        Map<Tags, Double> ages = new HashMap<>();
        Map<Tags, Double> stuck = new HashMap<>();
        jdbc.sql("select queue, " + REASON + """
                         as reason, count(*), extract(epoch from (cast(:now as timestamptz) - min(updated_at)))
                        from jobs where state = 'QUEUED' group by 1, 2""")
                .param("now", now)
                .query(rs -> {
                    Tags queue = Tags.of("queue", rs.getString(1));
                    long count = rs.getLong(3);
                    depths.merge(queue, (double) count, Double::sum);
                    ages.merge(queue, Math.max(0, rs.getDouble(4)), Math::max);
                    if (rs.getString(2) != null) {
                        stuck.put(queue.and("reason", rs.getString(2)), (double) count);
                    }
                });
        depth.set(depths);
        oldest.set(ages);
        unschedulable.set(stuck);
    }

    private void refreshMachines() {
        Map<Tags, Double> counts = new HashMap<>();
        Map<String, Map<Tags, Double>> amounts = new HashMap<>();
        capacity.keySet().forEach(k -> amounts.put(k, new HashMap<>()));
        jdbc.sql("""
                        select region, gpu_type, status, count(*),
                            sum(cpu_millis), sum(memory_mb), sum(gpu_count),
                            sum(alloc_cpu_millis), sum(alloc_memory_mb), sum(alloc_gpu_count)
                        from machines group by region, gpu_type, status""")
                .query(rs -> {
                    String gpuType = rs.getString(2) == null ? NONE : rs.getString(2);
                    Tags tags = Tags.of("region", rs.getString(1), "gpu_type", gpuType, "status", rs.getString(3));
                    counts.put(tags, (double) rs.getLong(4));
                    if (MachineStatus.valueOf(rs.getString(3)) == MachineStatus.LOST) {
                        return;
                    }
                    amounts.get("capacity.cpu").put(tags, rs.getLong(5) / 1000.0);
                    amounts.get("capacity.memory").put(tags, rs.getLong(6) * 1024.0 * 1024.0);
                    amounts.get("capacity.gpu").put(tags, (double) rs.getLong(7));
                    amounts.get("allocated.cpu").put(tags, rs.getLong(8) / 1000.0);
                    amounts.get("allocated.memory").put(tags, rs.getLong(9) * 1024.0 * 1024.0);
                    amounts.get("allocated.gpu").put(tags, (double) rs.getLong(10));
                });
        machines.set(counts);
        capacity.forEach((k, table) -> table.set(amounts.get(k)));
    }

    private void refreshHeartbeats(Timestamp now) {
        Map<Tags, Double> ages = new HashMap<>();
        jdbc.sql("""
                        select region,
                            percentile_cont(0.5) within group (order by age),
                            percentile_cont(0.99) within group (order by age),
                            max(age)
                        from (select region, greatest(0, extract(epoch from (cast(:now as timestamptz) - last_heartbeat_at))) as age
                              from machines where status <> 'LOST' and last_heartbeat_at is not null) m
                        group by region""")
                .param("now", now)
                .query(rs -> {
                    Tags region = Tags.of("region", rs.getString(1));
                    ages.put(region.and("stat", "p50"), rs.getDouble(2));
                    ages.put(region.and("stat", "p99"), rs.getDouble(3));
                    ages.put(region.and("stat", "max"), rs.getDouble(4));
                });
        heartbeatAge.set(ages);
    }
}
