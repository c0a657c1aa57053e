package io.fleetjobs.reconciler.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.zaxxer.hikari.HikariDataSource;
import io.fleetjobs.model.BoundedTagValues;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.store.FleetStatistics;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.MachineStore;
import io.fleetjobs.store.Submission;
import io.fleetjobs.store.TenantStore;
import io.fleetjobs.store.Transition;
import io.fleetjobs.testsupport.SettableClock;
import io.fleetjobs.testsupport.TestDatabases;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** The fleet and queue gauges against the real database, with a clock the test moves. */
class FleetGaugesTest {
    private final SettableClock clock = SettableClock.atNow();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private HikariDataSource ds;
    private JdbcClient jdbc;
    private JobStore jobs;
    private UUID tenant;
    private FleetGauges gauges;

    @BeforeEach
    void setUp() {
        ds = TestDatabases.create().dataSource(2);
        jdbc = JdbcClient.create(ds);
        jobs = new JobStore(jdbc, new DataSourceTransactionManager(ds), clock, null);
        tenant = new TenantStore(jdbc, clock).create("t", 1, null, null, null).orElseThrow().id();
        gauges = new FleetGauges(jdbc, clock, meters);
    }

    @AfterEach
    void tearDown() {
        ds.close();
    }

    private double gauge(String name, String... tags) {
        Gauge g = meters.find(name).tags(tags).gauge();
        assertThat(g).as(name + " " + String.join(",", tags)).isNotNull();
        return g.value();
    }

    private JobRecord queued(String name, String reason) {
        JobSpec spec = new JobSpec(name, null, null, Resources.of(1, 256), null, Execution.of("true"), null, null);
        JobRecord job = jobs.transition(((Submission.Accepted) jobs.submit(tenant, spec, null)).job(), Transition.admit())
                .orElseThrow();
        if (reason != null) { // as the scheduler's deferral writes it
            jdbc.sql("update jobs set state_reason = :r where id = :id").param("r", reason).param("id", job.id()).update();
        }
        return job;
    }

    @Test
    void queuesAreCountedWithTheirOldestAgeAndWhatHoldsTheUnplaceableBack() {
        queued("a", null);
        clock.advance(Duration.ofSeconds(30));
        queued("b", "0 of 3 machines fit: 3 lack GPU type H100");
        queued("c", "0 of 3 machines fit: 1 is outside region eu, 2 have fewer than 4 free GPUs");
        queued("d", "held back by the tenant's quota: 2 GPUs over 1");
        clock.advance(Duration.ofSeconds(10));

        gauges.refresh();

        assertThat(gauge("fleet.queue.depth", "queue", "default")).isEqualTo(4);
        assertThat(gauge("fleet.queue.oldest.seconds", "queue", "default")).isCloseTo(40, within(0.01));
        assertThat(gauge("fleet.queue.unschedulable", "queue", "default", "reason", "gpu-type")).isEqualTo(1);
        assertThat(gauge("fleet.queue.unschedulable", "queue", "default", "reason", "region")).isEqualTo(1);
        assertThat(gauge("fleet.queue.unschedulable", "queue", "default", "reason", "quota")).isEqualTo(1);

        // the queue empties: the gauges read 0 rather than vanish
        jdbc.sql("update jobs set state = 'CANCELED'").update();
        gauges.refresh();
        assertThat(gauge("fleet.queue.depth", "queue", "default")).isZero();
        assertThat(gauge("fleet.queue.unschedulable", "queue", "default", "reason", "gpu-type")).isZero();
    }

    @Test
    void queuesPastTheBoundAddUpUnderOther() {
        FleetGauges bounded = new FleetGauges(new FleetStatistics(jdbc), clock, meters,
                new BoundedTagValues(2));
        for (String queue : new String[] {"q-1", "q-2", "q-3", "q-4", "q-4"}) {
            JobSpec spec = new JobSpec("j", queue, null, Resources.of(1, 256), null, Execution.of("true"), null, null);
            jobs.transition(((Submission.Accepted) jobs.submit(tenant, spec, null)).job(), Transition.admit()).orElseThrow();
        }
        bounded.refresh();

        assertThat(meters.find("fleet.queue.depth").gauges()).hasSize(3);
        assertThat(gauge("fleet.queue.depth", "queue", "other")).as("two queues of own tags, the rest other")
                .isIn(2.0, 3.0);
        assertThat(meters.find("fleet.queue.depth").gauges().stream().mapToDouble(Gauge::value).sum()).isEqualTo(5);
    }

    @Test
    void machinesCapacityAllocationAndHeartbeatAgeByRegionAndGpuType() {
        MachineStore machines = new MachineStore(jdbc, clock);
        machines.register("cpu-1", "eu", Map.of(), null, 4_000, 8_192, 0);
        machines.register("gpu-1", "eu", Map.of(), "H100", 32_000, 65_536, 8);
        machines.register("gpu-2", "eu", Map.of(), "H100", 32_000, 65_536, 8);
        machines.register("gone", "us", Map.of(), null, 2_000, 1_024, 0);
        jdbc.sql("update machines set status = 'READY', alloc_gpu_count = 2, alloc_cpu_millis = 1500 where id = 'gpu-1'").update();
        jdbc.sql("update machines set status = 'LOST' where id = 'gone'").update();
        Timestamp now = Timestamp.from(clock.instant());
        jdbc.sql("update machines set last_heartbeat_at = :t").param("t", now).update();
        jdbc.sql("update machines set last_heartbeat_at = :t where id = 'gpu-2'")
                .param("t", Timestamp.from(clock.instant().minusSeconds(8))).update();
        clock.advance(Duration.ofSeconds(2));

        gauges.refresh();

        String status = jdbc.sql("select status from machines where id = 'gpu-2'").query(String.class).single();
        assertThat(gauge("fleet.machines", "region", "us", "gpu_type", "none", "status", "LOST")).isEqualTo(1);
        assertThat(meters.find("fleet.machines").tags("region", "eu", "gpu_type", "H100").gauges().stream()
                .mapToDouble(Gauge::value).sum()).isEqualTo(2);
        assertThat(gauge("fleet.capacity.gpus", "region", "eu", "gpu_type", "H100", "status", status))
                .isEqualTo(status.equals("READY") ? 16 : 8);
        assertThat(gauge("fleet.allocated.gpus", "region", "eu", "gpu_type", "H100", "status", "READY")).isEqualTo(2);
        assertThat(gauge("fleet.allocated.cpu.cores", "region", "eu", "gpu_type", "H100", "status", "READY"))
                .isGreaterThanOrEqualTo(1.5);
        assertThat(gauge("fleet.capacity.memory.bytes", "region", "eu", "gpu_type", "none", "status",
                jdbc.sql("select status from machines where id = 'cpu-1'").query(String.class).single()))
                .isEqualTo(8_192.0 * 1024 * 1024);
        assertThat(meters.find("fleet.capacity.cpu.cores").tags("region", "us").gauge())
                .as("a LOST machine's capacity is not counted").isNull();
        assertThat(gauge("fleet.heartbeat.age.seconds", "region", "eu", "stat", "max")).isCloseTo(10, within(0.01));
        assertThat(gauge("fleet.heartbeat.age.seconds", "region", "eu", "stat", "p50")).isCloseTo(2, within(0.01));
        assertThat(meters.find("fleet.heartbeat.age.seconds").tags("region", "us").gauge()).isNull();
    }
}
