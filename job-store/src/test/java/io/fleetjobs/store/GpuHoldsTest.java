package io.fleetjobs.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fleetjobs.model.AttemptState;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.GpuDevice;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.Resources;
import io.fleetjobs.model.agent.AttemptReport;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataIntegrityViolationException;

/** Each GPU attempt is given devices of its own in the placement's transaction, and gives them back when it ends. */
class GpuHoldsTest {
    private static StoreFixture f;
    private static PlacementStore placement;
    private static MachineStore machines;
    private static AttemptReports reports;

    @BeforeAll
    static void start() {
        f = new StoreFixture(2);
        placement = new PlacementStore(f.jdbc, f.jobs);
        machines = new MachineStore(f.jdbc, f.jobs.clock());
        reports = new AttemptReports(f.jdbc, f.jobs, new Random(3));
        machines.register("g", "eu", Map.of(), "H100", 64_000, 65_536, 4);
        machines.register("g2", "eu", Map.of(), "H100", 64_000, 65_536, 4);
        // a mixed machine: devices 1 and 3 are of another type and not offered
        machines.register("mixed", "eu", Map.of(), "A100", 64_000, 65_536, 2);
        machines.offerGpus("mixed", List.of(new GpuDevice(0, "GPU-a", "NVIDIA A100", 40_960L),
                new GpuDevice(2, "GPU-c", "NVIDIA A100", 40_960L)));
    }

    @AfterAll
    static void stop() {
        f.close();
    }

    private static JobSpec gpuJob(int gpus) {
        return new JobSpec("gpu", null, null, new Resources(BigDecimal.ONE, 256L, gpus, null), null, Execution.of("true"),
                null, null);
    }

    /** Places one job per entry of {@code gpus} on {@code machine}, in one commit, in that order. */
    private static List<UUID> place(String machine, int... gpus) {
        List<UUID> ids = new ArrayList<>();
        for (int n : gpus) {
            JobRecord job = ((Submission.Accepted) f.jobs.submit(f.tenant, gpuJob(n), null)).job();
            ids.add(f.jobs.transition(job, Transition.admit()).orElseThrow().id());
        }
        f.jobs.inTransaction(() -> {
            List<PlacementStore.NewAttempt> attempts = new ArrayList<>();
            List<ClaimedJob> claimed = placement.reclaim(ids);
            for (UUID id : ids) {
                ClaimedJob c = claimed.stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow();
                attempts.add(new PlacementStore.NewAttempt(c, machine, 1000, 256, c.gpuCount()));
            }
            return placement.commit(attempts, List.of(), Duration.ofSeconds(30));
        });
        return ids;
    }

    private static List<Integer> devices(UUID job) {
        return f.jobs.attempts(job).getLast().gpus();
    }

    @Test
    void attemptsOnOneMachineGetDisjointDevicesAndGiveThemBackWhenTheyEnd() {
        List<UUID> first = place("g", 1, 2);
        assertThat(devices(first.get(0))).containsExactly(0);
        assertThat(devices(first.get(1))).containsExactly(1, 2);
        assertThat(machines.liveAttempts("g")).filteredOn(a -> a.jobId().equals(first.get(1)))
                .singleElement().satisfies(a -> assertThat(a.gpus()).containsExactly(1, 2));

        JobRecord ending = f.jobs.get(first.get(0)).orElseThrow();
        Instant now = Instant.now();
        reports.apply(new AttemptReport(ending.id(), 1, f.epoch(ending.id(), 1), "g", AttemptState.SUCCEEDED, 0, null, now, now, "", ""));
        List<UUID> second = place("g", 1);
        assertThat(devices(second.getFirst())).as("device 0 was given back").containsExactly(0);
        assertThat(devices(first.get(0))).as("an ended attempt still says what it held").containsExactly(0);
    }

    @Test
    void aMachineOffersOnlyTheDevicesItListed() {
        List<UUID> placed = place("mixed", 1, 1);
        assertThat(devices(placed.get(0))).containsExactly(0);
        assertThat(devices(placed.get(1))).containsExactly(2);
        assertThat(machines.gpus("mixed")).extracting(GpuDevice::uuid).containsExactly("GPU-a", "GPU-c");
    }

    @Test
    void theDatabaseRefusesADeviceHeldTwice() {
        UUID holder = place("g2", 1).getFirst();
        Integer device = devices(holder).getFirst();
        UUID other = place("g2", 0).getFirst();
        assertThatThrownBy(() -> f.jdbc.sql("insert into gpu_holds values ('g2', :d, :j, 1)")
                .param("d", device).param("j", other).update())
                .isInstanceOf(DataIntegrityViolationException.class);
    }
}
