package io.fleetjobs.store;

import io.fleetjobs.model.MachineStatus;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The queues and the fleet in aggregate, for gauges: a few grouped queries, meant to be run every few
 * seconds, never per scrape or per job.
 */
public final class FleetStatistics {
    /**
     * The kind of obstacle a deferred job's reason (scheduler-core's explanation) names first; null for a
     * queued job that was not deferred (new, or waiting out a retry's backoff).
     */
    static final String OBSTACLE = """
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

    /** How many times as long as a refresh took the next waits, at least. */
    static final int PACE = 20;

    private final JdbcClient jdbc;

    /**
     * How long to wait after a refresh of gauges that took {@code took} before the next: {@code interval}, or
     * {@value #PACE} times what the refresh took when that is longer. The queue statistics read every queued job:
     * over a backlog of 100,000 jobs a read took 478 ms, every 5 s, a tenth of a core of PostgreSQL spent on a gauge;
     * paced, the gauges cost at most a twentieth of the time of the thread that refreshes them, however deep the queue.
     */
    public static Duration pause(Duration interval, Duration took) {
        Duration paced = took.multipliedBy(PACE);
        return paced.compareTo(interval) > 0 ? paced : interval;
    }

    public FleetStatistics(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * QUEUED jobs of a queue whose reason names one obstacle ({@code obstacle} null: not deferred), and how
     * long ago the oldest of them last changed.
     */
    public record QueuedGroup(String queue, String obstacle, long count, double oldestSeconds) {
    }

    public List<QueuedGroup> queued(Instant now) {
        return jdbc.sql("select queue, " + OBSTACLE + """
                         as reason, count(*), extract(epoch from (cast(:now as timestamptz) - min(updated_at)))
                        from jobs where state = 'QUEUED' group by 1, 2""")
                .param("now", Timestamp.from(now))
                .query((rs, n) -> new QueuedGroup(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getDouble(4)))
                .list();
    }

    /** How many jobs each queue holds QUEUED (queues without any are absent). */
    public Map<String, Long> queueDepths() {
        Map<String, Long> depths = new LinkedHashMap<>();
        jdbc.sql("select queue, count(*) from jobs where state = 'QUEUED' group by queue")
                .query(rs -> {
                    depths.put(rs.getString(1), rs.getLong(2));
                });
        return depths;
    }

    /** Machines of one region, GPU type (null for none) and status: how many, their capacity and what is allocated. */
    public record MachineGroup(String region, String gpuType, MachineStatus status, long count, long cpuMillis,
            long memoryMb, long gpus, long allocCpuMillis, long allocMemoryMb, long allocGpus) {
    }

    public List<MachineGroup> machines() {
        return jdbc.sql("""
                        select region, gpu_type, status, count(*),
                            sum(cpu_millis), sum(memory_mb), sum(gpu_count),
                            sum(alloc_cpu_millis), sum(alloc_memory_mb), sum(alloc_gpu_count)
                        from machines group by region, gpu_type, status""")
                .query((rs, n) -> new MachineGroup(rs.getString(1), rs.getString(2), MachineStatus.valueOf(rs.getString(3)),
                        rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getLong(8), rs.getLong(9),
                        rs.getLong(10)))
                .list();
    }

    /** The age in seconds of the last heartbeats of a region's machines not LOST: median, 99th percentile, oldest. */
    public record HeartbeatAges(String region, double p50, double p99, double max) {
    }

    public List<HeartbeatAges> heartbeatAges(Instant now) {
        List<HeartbeatAges> ages = new ArrayList<>();
        jdbc.sql("""
                        select region,
                            percentile_cont(0.5) within group (order by age),
                            percentile_cont(0.99) within group (order by age),
                            max(age)
                        from (select region, greatest(0, extract(epoch from (cast(:now as timestamptz) - last_heartbeat_at))) as age
                              from machines where status <> 'LOST' and last_heartbeat_at is not null) m
                        group by region""")
                .param("now", Timestamp.from(now))
                .query(rs -> {
                    ages.add(new HeartbeatAges(rs.getString(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4)));
                });
        return ages;
    }
}
