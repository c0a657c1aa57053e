package io.fleetjobs.scheduler.service;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.Ids;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Placement;
import io.fleetjobs.model.Resources;
import io.fleetjobs.scheduler.core.PlacementEngine;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Json;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.PlacementStore;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.testsupport.TestDatabases;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.InstantSource;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** A database with machines and queued jobs, and schedulers over it (each with a pool of its own). */
final class Fleet implements AutoCloseable {
    final TestDatabases.Database db = TestDatabases.create();
    final HikariDataSource dataSource = db.dataSource(4);
    final JdbcClient jdbc = JdbcClient.create(dataSource);
    final InstantSource clock;
    final MachineStore machines;
    final TenantStore tenants;
    final JobStore jobs;

    Fleet(InstantSource clock) {
        this.clock = clock;
        this.machines = new MachineStore(jdbc, clock);
        this.tenants = new TenantStore(jdbc, clock);
        this.jobs = new JobStore(jdbc, new DataSourceTransactionManager(dataSource), clock, null);
    }

    UUID tenant(String name) {
        return tenants.create(name, 1, null, null, null).orElseThrow().id();
    }

    /** A scheduler replica: its own pool, store and engine over the same database. */
    Replica replica(SchedulerProperties properties) {
        HikariDataSource ds = db.dataSource(2);
        JdbcClient client = JdbcClient.create(ds);
        JobStore store = new JobStore(client, new DataSourceTransactionManager(ds), clock, null);
        PlacementStore placement = new PlacementStore(client, store);
        return new Replica(ds, new SchedulerCycle(store, placement, new PlacementEngine(), properties,
                new SimpleMeterRegistry()));
    }

    record Replica(HikariDataSource dataSource, SchedulerCycle cycle) implements AutoCloseable {
        @Override
        public void close() {
            dataSource.close();
        }
    }

    static JobSpec spec(String name, double cpu, long memoryMb, int gpus, String gpuType, String region) {
        return new JobSpec(name, null, null, new Resources(BigDecimal.valueOf(cpu), memoryMb, gpus, gpuType),
                new Placement(region, Map.of(), null), Execution.of("true"), null, null);
    }

    /** Writes jobs straight into QUEUED (version 1, with their history row): fast set-up of deep queues. */
    void queue(UUID tenant, List<JobSpec> specs) {
        int n = specs.size();
        String[] ids = new String[n];
        String[] names = new String[n];
        Integer[] priorities = new Integer[n];
        String[] json = new String[n];
        Long[] cpu = new Long[n];
        Long[] mem = new Long[n];
        Integer[] gpu = new Integer[n];
        String[] gpuType = new String[n];
        String[] region = new String[n];
        for (int i = 0; i < n; i++) {
            JobSpec s = specs.get(i);
            ids[i] = Ids.newId(clock).toString();
            names[i] = s.name();
            priorities[i] = s.priority();
            json[i] = Json.write(s);
            cpu[i] = s.resources().cpuMillis();
            mem[i] = s.resources().memoryMb();
            gpu[i] = s.resources().gpuCount();
            gpuType[i] = s.resources().gpuType();
            region[i] = s.placement().region();
        }
        var now = OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
        jdbc.sql("""
                        insert into jobs (id, tenant_id, name, queue, priority, spec, state, state_reason, version, not_before,
                                          cpu_millis, memory_mb, gpu_count, gpu_type, region, created_at, updated_at)
                        select cast(d.id as uuid), :tenant, d.name, 'default', d.p, cast(d.spec as jsonb), 'QUEUED', 'admitted',
                               1, :now, d.cpu, d.mem, d.gpu, d.gt, d.region, :now, :now
                        from unnest(cast(:ids as text[]), cast(:names as text[]), cast(:p as int[]), cast(:spec as text[]),
                                    cast(:cpu as bigint[]), cast(:mem as bigint[]), cast(:gpu as int[]), cast(:gt as text[]),
                                    cast(:region as text[])) as d(id, name, p, spec, cpu, mem, gpu, gt, region)""")
                .param("tenant", tenant).param("now", now).param("ids", ids).param("names", names)
                .param("p", priorities).param("spec", json).param("cpu", cpu).param("mem", mem).param("gpu", gpu)
                .param("gt", gpuType).param("region", region)
                .update();
        jdbc.sql("""
                        insert into job_history (job_id, version, from_state, to_state, reason, at)
                        select cast(id as uuid), 1, null, 'QUEUED', 'admitted', :now from unnest(cast(:ids as text[])) as id""")
                .param("ids", ids).param("now", now)
                .update();
    }

    long count(String sql) {
        return jdbc.sql(sql).query(Long.class).single();
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
