package io.fleetjobs.scheduler.service;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.BoundedTagValues;
import io.fleetjobs.model.agent.AgentProtocol;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.scheduler.core.Preemptions;
import io.fleetjobs.scheduler.service.agent.AgentConnections;
import io.fleetjobs.scheduler.service.agent.AgentDatabase;
import io.fleetjobs.scheduler.service.agent.AgentProperties;
import io.fleetjobs.scheduler.service.agent.AgentService;
import io.fleetjobs.scheduler.service.agent.CadenceKeeper;
import io.fleetjobs.scheduler.service.agent.HeartbeatAdmission;
import io.fleetjobs.scheduler.service.agent.HeartbeatServlet;
import io.fleetjobs.scheduler.service.agent.HeartbeatWriter;
import io.fleetjobs.scheduler.service.agent.LeaseBroker;
import io.fleetjobs.scheduler.service.agent.LogFollowWatcher;
import io.fleetjobs.store.CadenceStore;
import io.fleetjobs.store.FleetStatistics;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.LogStreams;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.store.PreemptionStore;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.InstantSource;
import org.slf4j.LoggerFactory;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/** The scheduler's beans; the clock and the stores come from job-store's StoreAutoConfiguration. */
@Configuration(proxyBeanMethods = false)
class SchedulerConfig {
    @Bean
    LeaseBroker leaseBroker() {
        return new LeaseBroker();
    }

    @Bean
    SchedulerCycle schedulerCycle(JobStore jobs, PlacementStore placement, SchedulerProperties properties,
            MeterRegistry meters, LeaseBroker broker, JdbcClient jdbc, CadenceKeeper cadence, AgentProperties agents,
            @org.springframework.beans.factory.annotation.Value("${jobs.preemption.scope:OWN_OR_OVER_SHARE}")
            Preemptions.Scope preemptionScope) {
        SchedulerCycle cycle = new SchedulerCycle(jobs, placement, new PlacementEngine(), properties, meters,
                broker::signalAll, new PreemptionStore(jdbc), preemptionScope);
        cycle.followCadence(cadence::current, agents.heartbeatInterval());
        return cycle;
    }

    /**
     * The agent path's own pool ({@code jobs.agent.pool-size}, default 16), and two connections for the heartbeat
     * writer, on the service's database: heartbeats never queue for a connection behind placement, nor the writer
     * behind heartbeats.
     */
    @Bean(destroyMethod = "close")
    AgentDatabase agentDatabase(DataSourceProperties dataSource,
            @org.springframework.beans.factory.annotation.Value("${jobs.agent.pool-size:16}") int poolSize,
            InstantSource clock, MeterRegistry meters) {
        HikariDataSource heartbeats = pool(dataSource, "agent", poolSize);
        // a heartbeat not served within its agent's patience is worth nothing: fail it fast (503), do not queue it
        heartbeats.setConnectionTimeout(2_000);
        HikariDataSource writer = pool(dataSource, "heartbeat-writer", 2);
        writer.setConnectionInitSql("set lock_timeout = '250ms'"); // see HeartbeatWriter#flush
        return new AgentDatabase(heartbeats, writer, clock, meters);
    }

    private static HikariDataSource pool(DataSourceProperties dataSource,
            String name, int size) {
        HikariDataSource pool = dataSource.initializeDataSourceBuilder().type(HikariDataSource.class).build();
        pool.setPoolName(name);
        pool.setMaximumPoolSize(size);
        pool.setMinimumIdle(Math.min(2, size));
        return pool;
    }

    @Bean
    AgentConnections agentConnections() {
        return new AgentConnections();
    }

    @Bean
    HeartbeatWriter heartbeatWriter(AgentDatabase database, AgentProperties properties, InstantSource clock) {
        // a heartbeat waits at most half an interval for a busy machine's row before the writer waits for it
        return new HeartbeatWriter(database.writerMachines(), database.watermarks(), properties.heartbeatFlush(),
                properties.heartbeatInterval().dividedBy(2), clock);
    }

    @Bean
    CadenceKeeper cadenceKeeper(CadenceStore cadences,
            AgentProperties properties) {
        return new CadenceKeeper(cadences, properties.cadenceSettings(),
                properties.cadenceRefresh());
    }

    @Bean
    AgentService agentService(AgentDatabase database, LeaseBroker broker, HeartbeatWriter heartbeats, AgentProperties properties, SchedulerLoop loop,
            CadenceKeeper cadence, MeterRegistry meters,
            @org.springframework.beans.factory.annotation.Value("${jobs.agent.live-view-max-age:1s}") Duration liveViews,
            @org.springframework.beans.factory.annotation.Value("${jobs.agent.hold-after-end:100ms}") Duration holdAfterEnd) {
        // refuses to start with settings under which a silent machine's jobs could run twice at once
        LoggerFactory.getLogger(SchedulerConfig.class).info("fencing budget: {}",
                properties.fencingBudget().requireHolds());
        // trouble hearing the fleet lasts until every agent turned away has been heard again (HeardTrouble)
        heartbeats.troubleCalmsAfter(() -> cadence.current().interval().plus(cadence.current().leaseTtl()));
        AgentService agents = new AgentService(database.jobs(), database.machines(), database.reports(), broker,
                heartbeats, properties, loop::fleetChanged, cadence::current);
        agents.workAtOnce(database.poolSize());
        agents.keepViews(liveViews, System::nanoTime);
        agents.afterEnds(loop::roomAppeared, holdAfterEnd);
        FunctionCounter.builder("agent.heartbeats.from.view", agents, a -> a.viewCounts()[0])
                .description("heartbeats answered from this replica's view of their machine's attempts, not read")
                .register(meters);
        FunctionCounter.builder("agent.live.reads", agents, a -> a.viewCounts()[1])
                .description("reads of a machine's live attempts by heartbeats").register(meters);
        return agents;
    }

    /** At most so many heartbeats in progress at once; one past it is heard from its header and answered 503. */
    @Bean
    FilterRegistrationBean<HeartbeatAdmission>
            heartbeatAdmission(AgentService agents,
            @org.springframework.beans.factory.annotation.Value("${jobs.agent.max-heartbeats-in-progress:2048}") int limit) {
        var registration = new FilterRegistrationBean<>(
                new HeartbeatAdmission(limit, agents));
        registration.addUrlPatterns(AgentProtocol.HEARTBEAT_PATH);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    /** The heartbeat, answered without Spring MVC ({@link io.fleetjobs.scheduler.service.agent.HeartbeatServlet}). */
    @Bean
    ServletRegistrationBean<HeartbeatServlet>
            heartbeatServlet(AgentService agents, JsonMapper json) {
        var registration = new ServletRegistrationBean<>(
                new HeartbeatServlet(agents, json),
                AgentProtocol.HEARTBEAT_PATH);
        registration.setName("heartbeat");
        return registration;
    }

    /** Live logs: heartbeats' answers name the streams followed on the machine, and a new follow wakes its heartbeat. */
    @Bean
    LogFollowWatcher logFollowWatcher(AgentService agents,
            LogStreams logs, AgentDatabase database, LeaseBroker broker, InstantSource clock) {
        var watcher = new LogFollowWatcher(logs, broker, clock,
                Duration.ofMillis(200));
        agents.logFollows(watcher.gate(database.logs()::followsOn));
        return watcher;
    }

    @Bean
    SchedulerLoop schedulerLoop(SchedulerCycle cycle, PlacementStore placement, FleetStatistics statistics,
            SchedulerProperties properties, InstantSource clock, MeterRegistry meters,
            CircuitBreakerRegistry breakers,
            RetryRegistry retries,
            @org.springframework.beans.factory.annotation.Value("${jobs.metrics.max-queue-tags:50}") int maxQueueTags) {
        return new SchedulerLoop(cycle, placement, statistics, properties, clock, meters, breakers.circuitBreaker("database"),
                retries.retry("database"), new BoundedTagValues(maxQueueTags));
    }
}
