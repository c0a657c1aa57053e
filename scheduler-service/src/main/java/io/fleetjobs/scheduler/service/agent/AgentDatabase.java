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
 * holding every connection while heartbeats queued behind it past the agents' give-up. Not a {@code DataSource}
 * bean, so that the service's main pool stays the one Spring Boot configures and every other store uses.
 */
public final class AgentDatabase implements AutoCloseable {
    private final HikariDataSource pool;
    private final JobStore jobs;
    private final MachineStore machines;
    private final AttemptReports reports;
    private final HeartbeatWatermarks watermarks;
    private final LogStreams logs;

    /** @param pool its own pool, on the service's database; closed with this */
    public AgentDatabase(HikariDataSource pool, InstantSource clock, MeterRegistry meters) {
        this.pool = pool;
        if (meters != null) {
            pool.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(meters));
        }
        JdbcClient jdbc = JdbcClient.create(pool);
        this.jobs = new JobStore(jdbc, new JdbcTransactionManager(pool), clock, meters);
        this.machines = new MachineStore(jdbc, clock);
        this.reports = new AttemptReports(jdbc, jobs, new SecureRandom(), meters);
        this.watermarks = new HeartbeatWatermarks(jdbc, clock);
        this.logs = new LogStreams(jdbc, clock);
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

    public HeartbeatWatermarks watermarks() {
        return watermarks;
    }

    public LogStreams logs() {
        return logs;
    }

    @Override
    public void close() {
        pool.close();
    }
}
