package io.fleetjobs.scheduler.service.agent;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.fleetjobs.store.AttemptReports;
import io.fleetjobs.store.HeartbeatWatermarks;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.LogStreams;
import io.fleetjobs.store.MachineStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.security.SecureRandom;
import java.time.InstantSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.JdbcTransactionManager;

/**
 * The agent path's own connections: heartbeats (who is calling, what runs there, the reports they carry, the
 * batched liveness writes) never wait for a connection that placement, the API or the event relay holds. A control
 * plane busy with its own work must not make its fleet look dead: with one shared pool, a W1 load had placement
 * holding every connection while heartbeats queued behind it past the agents' give-up. The heartbeat writer has
 * connections of its own again: a flush late by a second makes the replica refuse to answer heartbeats (the fence,
 * {@link HeartbeatWriter#healthy()}), so it never queues behind the heartbeats' own reads either. Not {@code
 * DataSource} beans, so that the service's main pool stays the one Spring Boot configures and every other store uses.
 */
public final class AgentDatabase implements AutoCloseable {
    private final HikariDataSource pool;
    private final HikariDataSource writerPool;
    private final MachineStore writerMachines;
    private final JobStore jobs;
    private final MachineStore machines;
    private final AttemptReports reports;
    private final HeartbeatWatermarks watermarks;
    private final LogStreams logs;

    /**
     * @param pool the heartbeats' pool, on the service's database; closed with this
     * @param writerPool the heartbeat writer's, likewise
     */
    public AgentDatabase(HikariDataSource pool, HikariDataSource writerPool, InstantSource clock, MeterRegistry meters) {
        this.pool = pool;
        this.writerPool = writerPool;
        if (meters != null) {
            pool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(meters));
            writerPool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(meters));
        }
        JdbcClient writer = JdbcClient.create(writerPool);
        this.writerMachines = new MachineStore(writer, clock);
        this.watermarks = new HeartbeatWatermarks(writer, clock);
        JdbcClient jdbc = JdbcClient.create(pool);
        this.jobs = new JobStore(jdbc, new JdbcTransactionManager(pool), clock, meters);
        this.machines = new MachineStore(jdbc, clock);
        this.reports = new AttemptReports(jdbc, jobs, new SecureRandom(), meters);
        this.logs = new LogStreams(jdbc, clock);
    }

    /** How many connections heartbeats have. */
    public int poolSize() {
        return pool.getMaximumPoolSize();
    }

    public JobStore jobs() {
        return jobs;
    }

    public MachineStore machines() {
        return machines;
    }

    public AttemptReports reports() {
        return reports;
    }

    /** The machines, on the heartbeat writer's connections. */
    public MachineStore writerMachines() {
        return writerMachines;
    }

    /** On the heartbeat writer's connections. */
    public HeartbeatWatermarks watermarks() {
        return watermarks;
    }

    public LogStreams logs() {
        return logs;
    }

    @Override
    public void close() {
        pool.close();
        writerPool.close();
    }
}
