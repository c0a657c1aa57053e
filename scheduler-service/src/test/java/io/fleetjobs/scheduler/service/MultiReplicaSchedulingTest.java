package io.fleetjobs.scheduler.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetjobs.model.JobSpec;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Three scheduler replicas, each with its own connection pool, place thousands of jobs onto
 * hundreds of machines at once. Afterwards: no machine over-committed, every placed job has exactly
 * one live attempt (which holds its allocation), every other job is QUEUED with a reason, nothing lost, no
 * deadlock or other error in any replica.
 */
class MultiReplicaSchedulingTest {
    private static final int REPLICAS = 3;
    private static final int MACHINES = 300;
    private static final int JOBS = 4_000;

    @Test
    void replicasPlaceConcurrentlyWithoutOverCommitOrDoublePlacement() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        try (Fleet fleet = new Fleet(InstantSource.system())) {
            List<UUID> tenants = List.of(fleet.tenant("a"), fleet.tenant("b"), fleet.tenant("c"));
            String[] regions = {"eu", "us"};
            for (int i = 0; i < MACHINES; i++) {
                boolean gpu = i % 10 == 0;
                fleet.machines.register("m-%03d".formatted(i), regions[i % 2], Map.of("pool", i % 3 == 0 ? "batch" : "web"),
                        gpu ? (i % 20 == 0 ? "H100" : "A100") : null, 8_000 + 8_000L * (i % 3), 32_768, gpu ? 8 : 0);
            }
            for (UUID tenant : tenants) {
                List<JobSpec> specs = new ArrayList<>();
                for (int j = 0; j < JOBS / tenants.size(); j++) {
                    boolean gpu = random.nextInt(8) == 0;
                    specs.add(Fleet.spec("j" + j, 0.5 + random.nextInt(8) * 0.5, 256L * (1 + random.nextInt(16)),
                            gpu ? 1 + random.nextInt(4) : 0, gpu ? (random.nextBoolean() ? "H100" : "A100|H100") : null,
                            random.nextInt(4) == 0 ? regions[random.nextInt(2)] : null));
                }
                fleet.queue(tenant, specs);
            }
            long queued = fleet.count("select count(*) from jobs");

            // reasons written at the first look, so that every job left waiting shows one
            var properties = new SchedulerProperties(200, null, Duration.ofMinutes(10), null, Duration.ofMinutes(10),
                    Duration.ofMinutes(10), null, null, null, null, Duration.ZERO);
            List<Fleet.Replica> replicas = new ArrayList<>();
            for (int r = 0; r < REPLICAS; r++) {
                replicas.add(fleet.replica(properties));
            }
            // each replica runs two workers on its one cycle, as the scheduler's loop does
            ExecutorService pool = Executors.newFixedThreadPool(REPLICAS * 2);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<int[]>> outcomes = new ArrayList<>();
            for (Fleet.Replica replica : replicas) {
                for (int w = 0; w < 2; w++) {
                    outcomes.add(pool.submit(() -> {
                        go.await();
                        int placed = 0;
                        int conflicts = 0;
                        int idle = 0;
                        while (idle < 2) {
                            var result = replica.cycle().runOnce();
                            placed += result.placed();
                            conflicts += result.conflicts();
                            idle = result.claimed() == 0 ? idle + 1 : 0;
                        }
                        return new int[] {placed, conflicts};
                    }));
                }
            }
            go.countDown();
            int placed = 0;
            int conflicts = 0;
            for (Future<int[]> outcome : outcomes) {
                int[] r = outcome.get(); // a deadlock or any error in a replica fails here
                placed += r[0];
                conflicts += r[1];
            }
            pool.shutdown();
            replicas.forEach(Fleet.Replica::close);
            System.out.printf("seed %d: %d jobs, %d placed, %d conflicts re-planned%n", seed, queued, placed, conflicts);

            assertThat(placed).isPositive();
            assertThat(fleet.count("select count(*) from jobs where state = 'SCHEDULED'")).isEqualTo(placed);
            assertThat(fleet.count("select count(*) from jobs where state = 'QUEUED'"))
                    .as("some jobs must not fit, so that waiting is exercised too").isPositive();
            // nothing lost: each job is placed, or queued with a reason from the scheduler
            assertThat(fleet.count("""
                    select count(*) from jobs where state = 'SCHEDULED'
                       or (state = 'QUEUED' and state_reason like '0 of % machine%')""")).isEqualTo(queued);
            // no machine over-committed, and the counters agree with the allocations
            assertThat(fleet.count("""
                    select count(*) from machines where alloc_cpu_millis > cpu_millis or alloc_memory_mb > memory_mb
                       or alloc_gpu_count > gpu_count""")).isZero();
            assertThat(fleet.count("""
                    select count(*) from machines m left join (
                        select machine_id, sum(cpu_millis) c, sum(memory_mb) r, sum(gpu_count) g
                        from attempts where released_at is null group by machine_id) a on a.machine_id = m.id
                    where m.alloc_cpu_millis <> coalesce(a.c, 0) or m.alloc_memory_mb <> coalesce(a.r, 0)
                       or m.alloc_gpu_count <> coalesce(a.g, 0)""")).isZero();
            // exactly one live attempt per placed job, on the job's machine, and none for the others
            assertThat(fleet.count("""
                    select count(*) from jobs j where j.state = 'SCHEDULED' and 1 <> (
                        select count(*) from attempts a where a.job_id = j.id and a.state in ('SCHEDULED', 'RUNNING')
                           and a.machine_id = j.machine_id and a.attempt = j.attempt)""")).isZero();
            assertThat(fleet.count("select count(*) from attempts")).isEqualTo(placed);
            assertThat(fleet.count("select count(*) from attempts where released_at is null")).isEqualTo(placed);
            assertThat(fleet.count("select count(*) from job_history where to_state = 'SCHEDULED' and event_id is not null"))
                    .isEqualTo(placed);
            assertThat(fleet.count("select count(*) from job_history where to_state = 'SCHEDULED'")).isEqualTo(placed);
            // no orphans: every attempt and history row belongs to a job, every attempt to a machine
            assertThat(fleet.count("""
                    select (select count(*) from attempts a where not exists (select 1 from jobs j where j.id = a.job_id)
                               or not exists (select 1 from machines m where m.id = a.machine_id))
                         + (select count(*) from job_history h where not exists (select 1 from jobs j where j.id = h.job_id))""")).isZero();
        }
    }
}
